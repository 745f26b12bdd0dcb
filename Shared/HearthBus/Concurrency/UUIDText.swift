import Foundation

/// Lower-case UUID text, the form Hearth uses for every id on the wire.
public enum UUIDText {
    public static func make() -> String { UUID().uuidString.lowercased() }
}
