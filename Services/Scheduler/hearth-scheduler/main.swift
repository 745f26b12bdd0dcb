import SchedulerService

await SchedulerService.runProcess()
