import Logging
import ServiceLifecycle

extension ServiceGroupConfiguration {
    /// How every Hearth process runs its services: SIGTERM and SIGINT start a graceful
    /// shutdown, and a service still running 800 ms later is cancelled, so a stuck service fails
    /// loudly instead of hanging its supervisor (the stack's promise is exit within 1 s).
    public static func hearth(services: [any Service], logger: Logger) -> ServiceGroupConfiguration {
        var configuration = ServiceGroupConfiguration(
            services: services,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        configuration.maximumGracefulShutdownDuration = .milliseconds(800)
        return configuration
    }
}
