import BusService

await BusService.runProcess()
