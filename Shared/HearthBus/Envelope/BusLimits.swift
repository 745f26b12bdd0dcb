/// The bus's defaults, which `hearth.toml` may change (`HearthConfiguration`, in HearthHost).
public enum BusLimits {
    /// The default largest message, in bytes (`bus.max_message_bytes`).
    public static let defaultMaximumMessageBytes = 256 * 1024
    /// The default time a socket's thread keeps looking for input after it last worked
    /// (`ZMQContext.idleSpin`, `bus.idle_spin_us`).
    public static let defaultIdleSpinMicroseconds = 100
}
