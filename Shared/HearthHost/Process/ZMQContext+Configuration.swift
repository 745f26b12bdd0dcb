import HearthBus

extension ZMQContext {
    /// The context of a Hearth process, with its configuration's `bus.idle_spin_us`: services
    /// (`HearthProcess`) and the command line alike, so a device set not to spin does not.
    /// - Throws: `ZMQError` when libzmq cannot create it.
    public convenience init(configuration: HearthConfiguration) throws {
        try self.init(idleSpin: .microseconds(configuration.idleSpinMicroseconds))
    }
}
