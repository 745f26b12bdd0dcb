import Foundation

/// What runs this home's stack, so `hearth doctor` suggests commands that work there: runit
/// (`make run`: `deploy/runit-services` writes a service directory per process under
/// `run/services`, each watched by a runsv) or, otherwise, the systemd user units the Debian
/// package installs.
enum StackSupervisor: Equatable {
    /// runit, with the folder of service directories (`$HEARTH_HOME/run/services`).
    case runit(String)
    case systemd

    /// runit when a runsv watches one of the home's service directories: its `supervise/ok` FIFO
    /// opens for writing only while runsv holds it open for reading (how `sv` checks). A folder
    /// left behind by a stack that stopped is not a supervisor.
    static func detect(home: String) -> StackSupervisor {
        let services = (home as NSString).appendingPathComponent("run/services")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: services)) ?? []
        for name in names {
            let fifo = "\(services)/\(name)/supervise/ok"
            let descriptor = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if descriptor >= 0 {
                close(descriptor)
                return .runit(services)
            }
        }
        return .systemd
    }

    /// The command that starts `services` (`scheduler`, `store`) that are down, with where to read
    /// why they stopped.
    func start(_ services: [String]) -> String {
        switch self {
        case .runit(let folder):
            let home = ((folder as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
            let first = services.first ?? "store"
            return
                "sv up \(services.map { "\(folder)/\($0)" }.joined(separator: " ")) (\(home)/log/\(first)/current says why it stopped)"
        case .systemd:
            let units = services.map { "hearth-\($0).service" }.joined(separator: " ")
            return
                "systemctl --user start \(units) (journalctl --user -u hearth-\(services.first ?? "store").service says why it stopped), or run the stack with `make run`"
        }
    }

    /// The command that restarts `service`, or every service when `nil`.
    func restart(_ service: String? = nil) -> String {
        switch self {
        case .runit(let folder): return "sv restart \(folder)/\(service ?? "*")"
        case .systemd: return "systemctl --user restart \(service.map { "hearth-\($0).service" } ?? "hearth.target")"
        }
    }

    /// The command that stops every service.
    var stopAll: String {
        switch self {
        case .runit(let folder): return "sv force-stop \(folder)/* (or Ctrl-C where `make run` runs)"
        case .systemd: return "systemctl --user stop hearth.target"
        }
    }
}
