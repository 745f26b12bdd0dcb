import CZlib

/// zlib's deflate, one buffer at a time: packed pages of operations (`PackedPage`) and the
/// messages of a deflating command link (`CommandClient.deflateRequests()`).
///
/// Inflating is bounded: a stream that would inflate past `maximumBytes` is refused, never
/// allocated (a small message cannot become a huge one).
public enum Deflate {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case tooLarge(Int)
        case corrupt(Int32)

        public var description: String {
            switch self {
            case .tooLarge(let limit): "inflates beyond \(limit) bytes"
            case .corrupt(let code): "not a zlib stream (zlib error \(code))"
            }
        }
    }

    /// The first byte of every stream `compress` makes (a 32 KiB window, deflate): never the first
    /// byte of a JSON message, so a reader tells the two apart by it.
    public static let streamMarker: UInt8 = 0x78

    /// How hard to look for repeats.
    public enum Effort: Sendable {
        /// The smallest zlib makes (level 9): for small messages, where it costs microseconds.
        case smallest
        /// zlib's default (level 6): for large plain JSON (a page of operations), where level 9
        /// costs 1.8× the time for 1% fewer bytes (a 1.4 MB page: 25 against 44 ms).
        case balanced
        /// Huffman codes only, no repeats looked for: for large text that is already deflated
        /// data in base64 (a packed page), whose only redundancy is base64's 6 bits a
        /// character. As small as level 6 there, in a fifth of the time (a 500 KB page: 5
        /// against 24 ms).
        case codesOnly
    }

    /// `input` deflated (zlib format).
    public static func compress(_ input: [UInt8], effort: Effort = .balanced) -> [UInt8] {
        let (level, strategy): (Int32, Int32) =
            switch effort {
            case .smallest: (9, Z_DEFAULT_STRATEGY)
            case .balanced: (6, Z_DEFAULT_STRATEGY)
            case .codesOnly: (6, Z_HUFFMAN_ONLY)
            }
        var stream = z_stream()
        guard
            deflateInit2_(
                &stream, level, Z_DEFLATED, 15, 8, strategy, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return [] }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))))
        // Into deflateBound's bytes with Z_FINISH, one call ends the stream; anything else (for
        // want of memory only) gives nothing, and the caller sends the input as it is.
        let status = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { source in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                return CZlib.deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return [] }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }

    /// Past this, a message or page is large: deflated with less effort, and off the cooperative
    /// threads (`CommandServer`, `CommandClient`), since the time grows with it.
    public static let largeBytes = 64 * 1024

    /// A message of a deflating link, deflated as suits its size: small ones as small as they go,
    /// large ones (pages of packed operations) with Huffman codes only.
    public static func message(_ bytes: [UInt8]) -> [UInt8] {
        compress(bytes, effort: bytes.count > largeBytes ? .codesOnly : .smallest)
    }

    /// `deflate(bytes)` (`message` or `smaller`), on a thread of its own when the message is
    /// large (5 ms for 500 KB): for callers on the cooperative threads.
    public static func offPoolWhenLarge(
        _ bytes: [UInt8], _ deflate: @escaping @Sendable ([UInt8]) -> [UInt8]
    ) async -> [UInt8] {
        bytes.count > largeBytes ? await offPool { deflate(bytes) } : deflate(bytes)
    }

    /// `input` deflated (as a `message`) when that makes it smaller, else `input` as it is.
    public static func smaller(_ input: [UInt8]) -> [UInt8] {
        let packed = message(input)
        return !packed.isEmpty && packed.count < input.count ? packed : input
    }

    /// The bytes of a zlib stream, in a buffer grown as they come (a small message is not given
    /// `maximumBytes` of memory to fill).
    /// - Throws: `.tooLarge` when they would pass `maximumBytes`, `.corrupt` for a broken stream.
    public static func inflate(_ input: [UInt8], maximumBytes: Int) throws(Failure) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit_(&stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .corrupt(Z_MEM_ERROR)
        }
        defer { inflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: max(1, min(maximumBytes, max(256, input.count * 4))))
        var status: Int32 = Z_OK
        var produced = 0
        input.withUnsafeBufferPointer { source in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = uInt(source.count)
            while true {
                status = output.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress! + produced
                    stream.avail_out = uInt(out.count - produced)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    produced = out.count - Int(stream.avail_out)
                    return status
                }
                // Ended, broken, or short of input (a truncated stream): done.
                guard status == Z_OK || status == Z_BUF_ERROR, stream.avail_out == 0 else { return }
                // Out of room: a larger buffer, up to one byte past the bound (which says "too large").
                guard output.count <= maximumBytes else { return }
                output += repeatElement(0, count: min(output.count, maximumBytes + 1 - output.count))
            }
        }
        if produced > maximumBytes { throw .tooLarge(maximumBytes) }
        guard status == Z_STREAM_END else { throw .corrupt(status == Z_OK ? Z_BUF_ERROR : status) }
        output.removeSubrange(produced...)
        return output
    }
}
