import ArgumentParser
import HearthBus

/// `hearth`: every user action on a Hearth stack, from the command line.
// The availability attribute makes `main()` resolve to the async entry point (swift-argument-parser).
@available(macOS 10.15, macCatalyst 13, iOS 13, tvOS 13, watchOS 6, *)
public struct Hearth: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "Local-first household coordination: watch and drive the services of a Hearth stack.",
        discussion: """
            Every command takes these options, before or after its name \
            (`hearth --json status` is `hearth status --json`):
              --home <dir>     the data directory ($HEARTH_HOME, else $XDG_DATA_HOME/hearth)
              --json           print JSON instead of text
              --timeout <ms>   how long to wait for a service (default 2000)
            """,
        version: HearthVersion.line("hearth"),
        subcommands: [
            Status.self, Event.self, History.self, Conflicts.self, Device.self, Sync.self, Ops.self, Backup.self,
            Restore.self,
            Changes.self, Turn.self, Collection.self, Todo.self, CalendarView.self, Templates.self, Note.self,
            Focus.self, Reminder.self, Member.self, Timetable.self, People.self, Plan.self, Notify.self, Monitor.self,
            Publish.self,
            Config.self, Web.self, Search.self, Undo.self, Redo.self, Doctor.self,
        ]
    )

    public init() {}
}

extension Hearth {
    /// Parses the process arguments and runs the chosen subcommand, exiting with its status.
    ///
    /// Spelled out because on Linux `Hearth.main()` resolves to the synchronous entry point of
    /// `ParsableCommand`, which refuses asynchronous commands.
    public static func runFromCommandLine() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if FishCompletion.isRequested(by: arguments) {
            print(FishCompletion.script, terminator: "")
            return
        }
        do {
            // The asynchronous parse: a shell's request for completions (`---completion …`) may
            // run an asynchronous completion (`Completions`, which asks the stack).
            var command = try await asyncParseAsRoot(
                GlobalOptions.movingLeadingOptions(arguments))
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
