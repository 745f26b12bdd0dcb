import SyncService

await SyncService.runProcess()
