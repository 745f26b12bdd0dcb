import NotifierService

await NotifierService.runProcess()
