import Foundation
import HearthBus
import HearthCore

/// Subscribed calendars: each read when due (`BusySubscription.nextRead`: at once when new, a day
/// after a good read, an hour after a failed one), and on demand (`busy.read`).
extension SchedulerService {
    /// Loads the sources, reads those due, and sleeps until the next is due. A source subscribed
    /// meanwhile is read at the next look (a minute at most on the system clock), or at once by
    /// the `busy.read` that `hearth plan busy subscribe` sends.
    func readCalendars() async {
        while !Task.isCancelled {
            calendarWake.reset()
            let now = clock.now()
            var next: Date?
            do {
                let sources = try await store.send(BusyCommands.Sources()).sources
                await calendars.forget(except: sources)
                let due = sources.filter { source in source.next.flatMap(Timestamp.parse).map { $0 <= now } ?? true }
                for outcome in try await Self.readEach(due, calendars: calendars) {
                    if let error = outcome.error {
                        logger.warning("hearth-scheduler: cannot read \(BusySubscription.shown(outcome.url)): \(error)")
                    }
                    Self.announceUnplaced(outcome, publish: publish)
                }
                // What the reads recorded moved each source's next read on: look again.
                if !due.isEmpty { continue }
                next = sources.compactMap { $0.next.flatMap(Timestamp.parse) }.min()
            } catch {
                if Task.isCancelled { return }
                logger.warning("hearth-scheduler: cannot load or record subscribed calendars: \(error)")
                // A retry timer while the store is away, not synchronisation.
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            await clock.wait(until: next, or: calendarWake)
        }
    }

    /// `plan.unplaced` when a read left check-ins with no free time (a person may not be looking
    /// when the daily read finds the clash: the notifier shows it).
    static func announceUnplaced(_ read: BusyReads.Read, publish: (String, JSONValue) -> Void) {
        guard let unplaced = read.imported?.unplaced, !unplaced.isEmpty else { return }
        publish(
            "plan.unplaced",
            JSONValue(wire: PlanUnplacedEvent(source: BusySubscription.shown(read.url), unplaced: unplaced)))
    }

    /// `busy.read {url?}`: reads that source (or every one) now, whatever its next read.
    static func readNow(
        _ arguments: SchedulerQueries.ReadBusy, store: CommandClient, calendars: CalendarSubscriptions,
        publish: (String, JSONValue) -> Void
    ) async throws -> JSONValue {
        var sources = try await store.send(BusyCommands.Sources()).sources
        await calendars.forget(except: sources)
        if let text = arguments.url {
            let url: String
            do throws(RuleError) {
                url = try BusySubscription.normalised(text)
            } catch {
                throw CommandError.invalidArgument(error.field, error.rule)
            }
            sources = sources.filter { $0.url == url }
            guard !sources.isEmpty else {
                throw CommandError(
                    code: "not_found", message: "'url': \(BusySubscription.shown(url)) is not subscribed to")
            }
        }
        let reads = try await readEach(sources, calendars: calendars)
        for read in reads { announceUnplaced(read, publish: publish) }
        return try JSONValue(encoding: BusyReads(reads: reads))
    }

    /// Reads each of `sources` side by side, so a slow server delays only its own calendar; the
    /// reads in the order of `sources`.
    static func readEach(
        _ sources: [BusySource], calendars: CalendarSubscriptions
    ) async throws -> [BusyReads.Read] {
        try await withThrowingTaskGroup(of: (Int, BusyReads.Read).self) { group in
            for (index, source) in sources.enumerated() {
                group.addTask { (index, try await calendars.read(source)) }
            }
            var reads = [BusyReads.Read?](repeating: nil, count: sources.count)
            for try await (index, read) in group { reads[index] = read }
            return reads.compactMap { $0 }
        }
    }
}
