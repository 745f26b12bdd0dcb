import Foundation

/// A file a person named, read without ever holding more of it than the caller takes: a 1 GB
/// file (or `/dev/zero`) is turned away after `limit + 1` bytes, not read whole first.
public enum BoundedFile {
    /// Why a file was not read.
    public enum Failure: Error, Equatable {
        /// It cannot be opened or read.
        case unreadable
        /// It holds more than the limit.
        case tooLarge
    }

    /// The whole of `path` if it holds at most `limit` bytes.
    /// - Throws: `Failure` when it cannot be read, or holds more.
    public static func contents(atPath path: String, atMost limit: Int) throws(Failure) -> Data {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .unreadable }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: limit + 1) ?? Data()
        } catch {
            throw .unreadable
        }
        guard data.count <= limit else { throw .tooLarge }
        return data
    }
}
