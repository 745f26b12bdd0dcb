import BusService
import Foundation
import HearthCLI
import NotifierService
import SchedulerService
import StoreService
import SyncService
import TurnService
import WebService

// The Debian package's one executable: /usr/bin/hearth, with /usr/bin/hearth-bus, hearth-store, …
// as links to it. Called by a service's name it runs that service; by any other, the command
// line. One binary, not eight: each links the Swift runtime and Foundation statically (74 MB
// stripped), and eight copies made a 600 MB install.
switch (CommandLine.arguments.first.map { ($0 as NSString).lastPathComponent }) ?? "hearth" {
case "hearth-bus": await BusService.runProcess()
case "hearth-store": await StoreService.runProcess()
case "hearth-sync": await SyncService.runProcess()
case "hearth-turn": await TurnService.runProcess()
case "hearth-scheduler": await SchedulerService.runProcess()
case "hearth-notifier": await NotifierService.runProcess()
case "hearth-web": await WebService.runProcess()
default: await Hearth.runFromCommandLine()
}
