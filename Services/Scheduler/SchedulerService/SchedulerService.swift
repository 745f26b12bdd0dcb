import Foundation
import HearthBus
import HearthCalendar
import HearthCore
import HearthHost
import Logging
import ServiceLifecycle

/// `hearth-scheduler`: owns every timer: todo reminders and next-class notifications.
///
/// It holds the next reminder of every todo that has one in memory (`ReminderBoard`), loaded
/// from the store at start (`reminder.sources`) and kept current from the store's change feed
/// (`ChangeFollower`: nothing missed, a gap replayed). One loop sleeps until the earliest
/// reminder (a minute at most per wait, see `SystemSchedulerClock`; a change wakes it to look
/// again) and publishes `reminder.due` as the notifier catalog specifies, after recording in
/// the store that it fired (`reminder.record`), so a restart, a replayed change or a sync never
/// fires it twice. A reminder whose time passed while it was down fires once on start, saying it
/// is late.
///
/// Check-in reminders (`reminder.due` with id `plan:<item>`) come from a third loop over
/// `PlanBoard`, which also runs the social planner's daily refresh (`plan.week`) at start and at
/// the preferred time each day.
///
/// Busy times subscribed to by URL are read by a fourth loop (`CalendarSubscriptions`): each
/// source daily with its ETag, a failed one again within the hour.
///
/// Commands on `scheduler.cmd`, typed in HearthCore: a reminder's buttons (`ReminderActions`:
/// `reminder.done` completes the todo, or that day's occurrence, or marks a check-in happened;
/// `reminder.snooze` for `minutes`, default `[reminders] snooze`, surviving a restart;
/// `reminder.reschedule` a check-in; each answered with `ReminderActed`) and `SchedulerQueries`
/// (`reminder.showing`, what is on screen, for a notifier that starts late; `reminder.list`;
/// `reminder.reload`, after this device's profile changed: whose reminders pop here;
/// `class.list`; `plan.reminders`; `busy.read`).
///
/// Next-class notifications (`class.next`) come from a second loop over `ClassBoard`: today's and
/// tomorrow's lessons of each member whose notifications are on and who uses this device (its
/// profile's; everyone's on a device with no profile) (`class.sources`), loaded again
/// at midnight and whenever a hub entity changes, each raised once at its member's lead before
/// the lesson (recorded in the store first, so a restart never raises it twice).
public final class SchedulerService: Service {
    private let configuration: HearthConfiguration
    private let context: ZMQContext
    private let publisher: Publisher
    let store: CommandClient
    private let board: ReminderBoard
    private let classes: ClassBoard
    private let classWake = AsyncSignal()
    let plans: PlanBoard
    let planWake: AsyncSignal
    let calendars: CalendarSubscriptions
    let calendarWake = AsyncSignal()
    private let commands: CommandServer
    let clock: any SchedulerClock
    private let wake: AsyncSignal
    private let reloads: ReminderReloads
    let logger: Logger

    public init(
        configuration: HearthConfiguration, context: ZMQContext, device: String, logger: Logger,
        clock: any SchedulerClock = SystemSchedulerClock()
    ) throws {
        self.configuration = configuration
        self.context = context
        self.logger = logger
        self.clock = clock
        let publisher = try Publisher(
            context: context, endpoint: configuration.busPublishEndpoint, source: "scheduler", device: device,
            maximumMessageBytes: configuration.maximumMessageBytes)
        self.publisher = publisher
        let store = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(.store), timeout: .seconds(2), attempts: 3,
            maximumMessageBytes: configuration.maximumMessageBytes)
        self.store = store
        let board = ReminderBoard(clock: HouseholdTime(timeZone: configuration.household.timeZone)) {
            clock.now()
        }
        self.board = board
        let classes = ClassBoard(clock: HouseholdTime(timeZone: configuration.household.timeZone))
        self.classes = classes
        let plans = PlanBoard(clock: HouseholdTime(timeZone: configuration.household.timeZone))
        self.plans = plans
        let planWake = AsyncSignal()
        self.planWake = planWake
        let wake = AsyncSignal()
        self.wake = wake
        let reloads = ReminderReloads()
        self.reloads = reloads
        // hearth-web's port, when it has a fixed one: no subscription reads the household's own feed.
        let calendars = CalendarSubscriptions(
            home: configuration.home, store: store, clock: clock,
            ownPorts: configuration.web.port == 0 ? [] : [configuration.web.port])
        self.calendars = calendars
        let handler = SchedulerCommands(
            board: board, classes: classes, plans: plans, calendars: calendars, store: store,
            snooze: configuration.household.snooze,
            clock: clock, reload: { await reloads.reload(timeout: .seconds(5)) },
            publish: { topic, data in
                Self.publish(topic, data, on: publisher, logger: logger)
                wake.fire()
                planWake.fire()
            })
        commands = try CommandServer(
            context: context, endpoint: configuration.commandEndpoint(.scheduler), service: "scheduler",
            maximumMessageBytes: configuration.maximumMessageBytes, logger: logger,
            pingInfo: {
                [
                    "reminders": .int(Int64(await board.count)), "classes": .int(Int64(await classes.count)),
                    "plans": .int(Int64(await plans.count)),
                ]
            },
            handler: { request in try await handler.handle(request) })
    }

    public func run() async throws {
        logger.info("hearth-scheduler up")
        let (publisher, store) = (publisher, store)
        try await ServiceGroup.parts(
            [
                // (A calendar's read is one libcurl transfer of its own: nothing of it stays open.)
                ServiceResources("scheduler sockets") {
                    await store.close()
                    await publisher.close()
                },
                ServiceLoop("store changes", followStore), ServiceLoop("timers", fireReminders),
                ServiceLoop("classes", fireClasses), ServiceLoop("check-ins", firePlans),
                ServiceLoop("calendars", readCalendars), commands,
            ], logger: logger
        ).run()
    }

    // MARK: - The store's state and changes in

    /// Loads every reminder, then follows the store's changes from the position of that load;
    /// starts again from a full load whenever the store cannot be followed (it restarted or is
    /// down), with a backoff.
    private func followStore() async {
        var delay = Duration.milliseconds(250)
        while !Task.isCancelled {
            var follower: ChangeFollower?
            do {
                let token = await reloads.starting()
                let since = try await load()
                await reloads.finished(token)
                delay = .milliseconds(250)
                let following = try await changes(since: since)
                follower = following
                await reloads.follow(following, after: token)
                for try await change in following {
                    guard let entity = try? change.data.decode(ChangedEntity.self).operation.entity else { continue }
                    let (kind, id) = (entity.kind, entity.id)
                    switch kind {
                    case Todos.todoKind: try await refresh(id)
                    case Todos.completionKind:
                        if let (template, _) = Todos.completionParts(id) { try await refresh(template) }
                    case let kind where Hub.entityKinds.contains(kind):
                        await classes.markStale()
                        classWake.fire()
                    case let kind where Social.entityKinds.contains(kind):
                        await plans.markStale()
                        planWake.fire()
                    default: continue
                    }
                }
            } catch {
                if !Task.isCancelled {
                    logger.warning("hearth-scheduler: cannot follow the store (\(error)); loading again in \(delay)")
                }
            }
            await follower?.close()
            if Task.isCancelled { return }
            if await reloads.stopped() { continue }
            // A backoff before asking a store that did not answer again, not synchronisation.
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }

    /// The store's changes after `since`: every store topic, not just todos', so its `seq`s run on
    /// without holes (a card's change between two todo changes is not a gap to replay).
    private func changes(since: UInt64) async throws -> ChangeFollower {
        let bus = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(.bus), timeout: .milliseconds(500))
        do {
            let follower = try await ChangeFollower(
                context: context, busEndpoint: configuration.busSubscribeEndpoint, bus: bus, source: "store",
                prefix: "store.", commands: store, since: since)
            await bus.close()
            return follower
        } catch {
            await bus.close()
            throw error
        }
    }

    /// The completion dates a source carries: from a month back (what can still be on screen).
    private func since() -> String {
        board.clock.today(at: clock.now()).adding(days: -31).description
    }

    /// Loads every reminder source, page by page.
    /// - Returns: the store's change `seq` the load is current to (taken before it).
    private func load() async throws -> UInt64 {
        let last = try await store.send(HistoryCommands.Changes(since: Int64.max >> 1, limit: 1))
        let seq = UInt64(max(0, last.lastSeq))
        var sources: [ReminderSource] = []
        var after = ""
        let since = since()
        while true {
            let page = try await store.send(ReminderCommands.Sources(after: after, since: since))
            sources.append(contentsOf: page.reminders.compactMap(ReminderSource.init))
            guard let next = page.next else { break }
            after = next
        }
        await board.load(sources)
        logger.info("hearth-scheduler: \(sources.count) todos with reminders")
        wake.fire()
        await classes.markStale()
        classWake.fire()
        await plans.markStale()
        planWake.fire()
        return seq
    }

    /// Reads one todo's source again after a change to it or its completions.
    private func refresh(_ todo: String) async throws {
        let reply = try await store.send(ReminderCommands.Sources(since: since(), ids: [todo]))
        let source = reply.reminders.first.flatMap(ReminderSource.init)
        for (topic, data) in await board.update(todo: todo, to: source) { publish(topic, data) }
        wake.fire()
    }

    // MARK: - Timers out

    /// How long before its time a reminder is recorded as fired. Recording is a store write
    /// (about 3 ms here, most of a lone reminder's lateness when it was done at the due time);
    /// done ahead, the popup is raised on time. The price: a scheduler killed within this lead of
    /// a reminder's time loses that reminder (it never fires twice, by design, rather than risk
    /// firing twice).
    static let recordLead: Duration = .milliseconds(25)

    /// Sleeps until the next reminder (or a change): records those due within the lead as
    /// fired, then publishes each at its time.
    private func fireReminders() async {
        while !Task.isCancelled {
            wake.reset()
            let upcoming = await board.toRecord(within: Self.recordLead)
            if !upcoming.isEmpty { await record(upcoming) }
            let now = clock.now()
            for reminder in await board.ready() {
                await board.fired(reminder)
                let source = await board.source(reminder.todo)
                let title = source?.popupTitle(reminder) ?? ""
                publish(
                    "reminder.due",
                    JSONValue(wire: ReminderBoard.dueEvent(reminder, title: title, for: source?.forMember, now: now)))
            }
            await clock.wait(until: await board.nextWake(lead: Self.recordLead), or: wake)
        }
    }

    /// Records in the store that each reminder fired; one that cannot be recorded is not
    /// published (it fires when the store answers: never twice).
    private func record(_ reminders: [ReminderSource.Reminder]) async {
        let records = reminders.map { reminder in
            ReminderCommands.Record.Entry(
                id: reminder.todo, firedDue: ReminderBoard.milliseconds(reminder.due), snoozedUntil: .some(nil))
        }
        do {
            _ = try await store.send(ReminderCommands.Record(records: records))
            await board.markRecorded(reminders)
        } catch {
            logger.warning("hearth-scheduler: cannot record \(reminders.count) reminders firing: \(error)")
            // A retry timer while the store is away, not synchronisation.
            try? await Task.sleep(for: .seconds(1))
        }
    }

    // MARK: - Next-class notifications

    /// Loads today's and tomorrow's lessons when the board is stale or the day moved on, raises
    /// the notifications whose time has come, and sleeps until the next one, midnight or a
    /// change to the timetable.
    private func fireClasses() async {
        while !Task.isCancelled {
            classWake.reset()
            let now = clock.now()
            let today = classes.clock.today(at: now)
            do {
                let (stale, through) = (await classes.stale, await classes.loadedThrough)
                if stale || (through ?? today) <= today {
                    let sources = try await store.send(
                        TimetableCommands.Classes(from: today.description, to: today.adding(days: 1).description))
                    await classes.load(sources, through: today.adding(days: 1))
                }
                for alert in await classes.ready(now: now) {
                    _ = try await store.send(
                        TimetableCommands.RecordClass(
                            member: alert.member, start: ReminderBoard.milliseconds(alert.start)))
                    await classes.raisedAlert(alert)
                    publish("class.next", JSONValue(wire: ClassNextEvent(alert.lesson)))
                    logger.debug(
                        "hearth-scheduler: next class for \(alert.memberName): \(alert.subject) at \(alert.start)")
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("hearth-scheduler: cannot load or record next-class notifications: \(error)")
                // A retry timer while the store is away, not synchronisation.
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            let midnight = classes.clock.instant(today.adding(days: 1), LocalTime(hour: 0, minute: 0)!)
            let next = [await classes.nextWake(after: now), midnight].compactMap { $0 }.min()
            await clock.wait(until: next, or: classWake)
        }
    }

    func publish(_ topic: String, _ data: JSONValue) {
        Self.publish(topic, data, on: publisher, logger: logger)
    }

    private static func publish(_ topic: String, _ data: JSONValue, on publisher: Publisher, logger: Logger) {
        do {
            _ = try publisher.publish(topic: topic, type: topic, data: data)
        } catch {
            logger.warning("hearth-scheduler: cannot publish \(topic): \(error)")
        }
    }
}
