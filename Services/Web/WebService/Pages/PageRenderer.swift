import Foundation
import HTTPTypes
import HearthBus
import Hummingbird
import HummingbirdCore
import Mustache

/// Renders the household page's views from the mustache templates in `Templates/`.
///
/// Each view `NAME` has `NAME-main.mustache` (the view's own part, which a live page fetches
/// alone to refresh itself) and `NAME.mustache` (the whole page: `layout.mustache` around it).
/// Every value is written with `{{ }}`, which escapes HTML; no template uses `{{{ }}}`
/// (`WebSecurityTests` checks the files).
struct PageRenderer: Sendable {
    /// The views, in the navigation's order, with their titles.
    static let views: [(name: String, title: String)] = [
        ("year", "Year"), ("today", "Today"), ("stats", "Stats"), ("timetable", "Timetable"), ("people", "People"),
        ("game", "Game"), ("devices", "Devices"), ("changes", "Changes"),
    ]

    /// The views reached otherwise than from the navigation: search, from the box in the header.
    static let unlisted: [(name: String, title: String)] = [("search", "Search")]

    private let library: MustacheLibrary
    /// The static files by name, with their content types, read once at start (no file is read
    /// while serving).
    let assets: [String: (type: String, bytes: ByteBuffer)]
    /// Where the templates were read from (`/usr/share/hearth/Templates` when installed).
    let folder: String

    /// Loads every template and static file (at start, before the server listens).
    /// - Throws: a parse error naming the template, or `CommandError` if the bundle lacks them.
    init() async throws {
        let (templates, folder) = try Self.resourceFolders()
        self.folder = templates.path
        library = try await MustacheLibrary(directory: templates.path)
        let types = [
            "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml",
        ]
        var assets: [String: (type: String, bytes: ByteBuffer)] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            guard let type = types[(name as NSString).pathExtension],
                let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path)
            else { continue }
            assets[name] = (type, ByteBuffer(bytes: data))
        }
        self.assets = assets
    }

    /// Where the templates and static files are: `../share/hearth` beside the executable (the
    /// Debian package's `/usr/bin/hearth-web` reads `/usr/share/hearth`) when it holds them, else
    /// the build's resource bundle (`swift build`, or `make install`, which copies the bundle
    /// beside the executable).
    static func resourceFolders() throws -> (templates: URL, assets: URL) {
        let executable = Bundle.main.executableURL?.resolvingSymlinksInPath()
        if let prefix = executable?.deletingLastPathComponent().deletingLastPathComponent() {
            let shared = prefix.appendingPathComponent("share/hearth")
            let templates = shared.appendingPathComponent("Templates")
            if FileManager.default.fileExists(atPath: templates.appendingPathComponent("layout.mustache").path) {
                return (templates, shared.appendingPathComponent("Assets"))
            }
        }
        guard let templates = Bundle.module.url(forResource: "Templates", withExtension: nil),
            let folder = Bundle.module.url(forResource: "Assets", withExtension: nil)
        else {
            throw CommandError(code: "internal", message: "the page's templates are missing from the bundle")
        }
        return (templates, folder)
    }

    /// The view `name` as a whole page, or only its main part when `fragment` (a live refresh).
    /// - Parameters:
    ///   - context: the view's values (`[String: Any]` of strings, numbers, booleans, arrays and
    ///     dictionaries, as `JSONValue.mustache` makes them).
    ///   - status: 422 when a form's input was refused (the errors are in `context["errors"]`).
    ///   - template: the template to render in the view's place (`failure` for an error).
    func page(
        _ name: String, context: [String: Any], fragment: Bool, status: HTTPResponse.Status = .ok,
        template: String? = nil
    ) -> Response {
        Self.response(status, render(name, context: context, fragment: fragment, template: template))
    }

    /// The view's HTML (as `page` describes).
    func render(_ name: String, context: [String: Any], fragment: Bool, template: String? = nil) -> ByteBuffer {
        var context = context
        context["view"] = name
        context["nav"] = Self.views.map { view -> [String: Any] in
            ["name": view.name, "title": view.title, "current": view.name == name]
        }
        context["title"] = (Self.views + Self.unlisted).first { $0.name == name }?.title ?? "Hearth"
        let template = template ?? name
        return ByteBuffer(string: library.render(context, withTemplate: fragment ? "\(template)-main" : template) ?? "")
    }

    /// A rendered view as an answer (never cached by the browser: the page is live).
    static func response(_ status: HTTPResponse.Status, _ body: ByteBuffer) -> Response {
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"]
        headers[.vary] = "X-Hearth-Fragment"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}

extension JSONValue {
    /// The value as mustache reads it: objects as dictionaries, arrays as arrays, scalars as
    /// themselves, null as `false` (kept, not left out: a missing name would be looked up in the
    /// enclosing values instead, and a suggestion without a title would show its card's).
    var mustache: Any {
        switch self {
        case .null: return false
        case .bool(let value): return value
        case .int(let value): return Int(value)
        case .double(let value): return value
        case .string(let value): return value
        case .array(let values): return values.map(\.mustache)
        case .object(let members):
            var dictionary: [String: Any] = [:]
            for (key, value) in members { dictionary[key] = value.mustache }
            return dictionary
        case .encoded: return ""  // only in values a service sends on; never in a reply read here
        }
    }

    /// The object's members as mustache reads them (empty for anything else).
    var mustacheObject: [String: Any] { mustache as? [String: Any] ?? [:] }

    /// The array's elements as mustache dictionaries (empty for anything else).
    var mustacheArray: [[String: Any]] { (arrayValue ?? []).map(\.mustacheObject) }
}
