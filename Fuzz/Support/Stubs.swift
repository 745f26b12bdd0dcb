// What the fuzzed HearthBus sources name from the rest of HearthBus (the configuration pulls in
// TOML and libzmq, which the fuzz targets do not need): the same value as HearthConfiguration's.
public enum HearthConfiguration {
    public static let defaultMaximumMessageBytes = 256 * 1024
}
