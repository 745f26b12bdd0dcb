import TurnService

await TurnService.runProcess()
