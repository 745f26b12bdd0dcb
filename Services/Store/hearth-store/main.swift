import StoreService

await StoreService.runProcess()
