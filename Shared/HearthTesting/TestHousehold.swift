import HearthBus
import HearthCore
import HearthTrust
import StoreService

/// The other devices a test plays (Mum's phone, Dad's laptop): each signs its operations with a
/// key derived from its id, so any test can write in its name and have a store trust it, as a
/// paired device would (`device.trust`).
public enum TestHousehold {
    /// The signing key a test plays `device` with.
    public static func key(_ device: String) -> SigningKey {
        SigningKey(seed: Sodium.hash("hearth/test-device/1", [Array(device.utf8)]))
    }

    /// `operation`, in the exchange format, signed by its author's test key (its `sig`
    /// replaced). An operation that does not parse is returned as it is, for tests of refusals.
    public static func signed(_ operation: JSONValue) -> JSONValue {
        guard let parsed = try? Operation(json: operation, at: "operation") else { return operation }
        return parsed.signed(key(parsed.author).sign(parsed).text)
    }

    /// Each of `operations` signed (`signed(_:)`).
    public static func signed(_ operations: [JSONValue]) -> JSONValue { .array(operations.map { signed($0) }) }

    /// Makes the store at `store` trust the test keys of `devices`, as pairing with them does.
    public static func trust(_ devices: [String], store: CommandClient) async throws {
        for device in devices {
            _ = try await store.send(DeviceCommands.Trust(device: device, key: key(device).publicKey.text))
        }
    }
}
