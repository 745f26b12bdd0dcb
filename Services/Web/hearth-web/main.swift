import WebService

await WebService.runProcess()
