import HearthBus

/// Asks the scheduler's store loop to load every reminder again, and waits for it: what a change
/// the change feed does not carry needs (this device's profile, which decides whose reminders
/// pop here, is this device's alone and never an operation).
///
/// The load runs in the store loop itself, never beside it, so it cannot race the loop's own
/// per-todo refreshes: the loop's follower is closed, the loop loads from scratch, and each
/// waiter is told once a load that began after its request has finished.
actor ReminderReloads {
    private var follower: ChangeFollower?
    /// Reloads asked for, and the last one a finished load covers.
    private var asked = 0
    private var loaded = 0
    private var waiters: [(target: Int, signal: AsyncSignal)] = []

    /// The load about to start covers every reload asked for until now.
    /// - Returns: its token, for `finished` and `follow`.
    func starting() -> Int { asked }

    /// A load with `token` finished: tells every waiter it covers.
    func finished(_ token: Int) {
        loaded = max(loaded, token)
        waiters.removeAll { waiter in
            guard waiter.target <= loaded else { return false }
            waiter.signal.fire()
            return true
        }
    }

    /// The loop follows changes with `follower` after the load with `token`; a reload asked for
    /// since that load began closes it at once (the loop then loads again).
    func follow(_ follower: ChangeFollower, after token: Int) async {
        self.follower = follower
        if asked > token { await follower.close() }
    }

    /// The loop stopped following.
    /// - Returns: whether it stopped for a reload (so it loads again without a backoff).
    func stopped() -> Bool {
        follower = nil
        return asked > loaded
    }

    /// Asks for a reload and waits for it, at most `timeout`.
    /// - Returns: whether a load covering it finished in time.
    func reload(timeout: Duration) async -> Bool {
        asked += 1
        let signal = AsyncSignal()
        waiters.append((asked, signal))
        await follower?.close()
        return await signal.wait(timeout: timeout)
    }
}
