// swift-tools-version:6.2
import Foundation
import PackageDescription

/// Settings every Hearth target shares: Swift 6 language mode (strict concurrency) and, when
/// HEARTH_WARNINGS_AS_ERRORS is set (CI sets it), warnings treated as errors in Hearth's own code.
let swiftSettings: [SwiftSetting] =
    [.enableUpcomingFeature("ExistentialAny")]
    + (ProcessInfo.processInfo.environment["HEARTH_WARNINGS_AS_ERRORS"] == nil
        ? [] : [.treatAllWarnings(as: .error)])

let package = Package(
    name: "Hearth",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HearthCore", targets: ["HearthCore"]),
        .library(name: "HearthBus", targets: ["HearthBus"]),
        .library(name: "HearthHost", targets: ["HearthHost"]),
        .executable(name: "hearth", targets: ["hearth"]),
        .executable(name: "hearth-bus", targets: ["hearth-bus"]),
        .executable(name: "hearth-store", targets: ["hearth-store"]),
        .executable(name: "hearth-notifier", targets: ["hearth-notifier"]),
        .executable(name: "hearth-turn", targets: ["hearth-turn"]),
        .executable(name: "hearth-sync", targets: ["hearth-sync"]),
        .executable(name: "hearth-scheduler", targets: ["hearth-scheduler"]),
        .executable(name: "hearth-web", targets: ["hearth-web"]),
        .executable(name: "hearth-bench", targets: ["hearth-bench"]),
        .executable(name: "hearth-multicall", targets: ["hearth-multicall"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
        // The household page: without swift-configuration (Hearth reads hearth.toml itself).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The HTTP parts Hummingbird's channel carries (NIOHTTPTypes), for the page's header timeout.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    ],
    targets: [
        // MARK: - System libraries
        .systemLibrary(
            name: "CZeroMQ",
            path: "Shared/CZeroMQ",
            pkgConfig: "libzmq",
            providers: [.apt(["libzmq3-dev"])]
        ),
        .systemLibrary(
            name: "CLibNotify",
            path: "Shared/CLibNotify",
            pkgConfig: "libnotify",
            providers: [.apt(["libnotify-dev"])]
        ),

        .systemLibrary(
            name: "CSodium",
            path: "Shared/CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        .systemLibrary(
            name: "CMalloc",
            path: "Shared/CMalloc"
        ),
        .systemLibrary(
            name: "CZlib",
            path: "Shared/CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CCurl",
            path: "Shared/CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CQREncode",
            path: "Shared/CQREncode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        .systemLibrary(
            name: "CPoppler",
            path: "Shared/CPoppler",
            pkgConfig: "poppler-glib",
            providers: [.apt(["libpoppler-glib-dev"])]
        ),
        .systemLibrary(
            name: "CLibICal",
            path: "Shared/CLibICal",
            pkgConfig: "libical",
            providers: [.apt(["libical-dev"])]
        ),

        // MARK: - Shared libraries
        .target(
            name: "HearthCore",
            path: "Shared/HearthCore",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HearthBus",
            dependencies: [
                "CZeroMQ",
                "CZlib",
                "HearthCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Shared/HearthBus",
            swiftSettings: swiftSettings,
            // `HearthVersion.version` and `.commit`: every executable's `--version`, every ping's reply.
            plugins: ["VersionStamp"]
        ),
        // What a Hearth process is hosted by: its configuration (hearth.toml and the environment),
        // its start-up (`HearthProcess`, the single-instance lock) and LAN discovery. HearthBus
        // is messaging only.
        .target(
            name: "HearthHost",
            dependencies: [
                "HearthBus",
                "HearthCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ],
            path: "Shared/HearthHost",
            swiftSettings: swiftSettings
        ),
        .plugin(name: "VersionStamp", capability: .buildTool(), path: "Plugins/VersionStamp"),
        .target(
            name: "HearthTrust",
            dependencies: ["CSodium", "HearthCore"],
            path: "Shared/HearthTrust",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HearthPairing",
            dependencies: ["CSodium", "HearthCore", "HearthTrust"],
            path: "Shared/HearthPairing",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HearthCalendar",
            dependencies: ["CLibICal", "HearthCore"],
            path: "Shared/HearthCalendar",
            swiftSettings: swiftSettings
        ),
        // A PDF's words with their positions (poppler), for the timetable import.
        .target(
            name: "HearthPDF",
            dependencies: ["CPoppler", "HearthCore"],
            path: "Shared/HearthPDF",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HearthNotify",
            dependencies: ["CLibNotify", "HearthCore"],
            path: "Shared/HearthNotify",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HearthTesting",
            dependencies: [
                "HearthBus", "HearthHost",
                "HearthCore",
                "HearthTrust",
                "StoreService",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Shared/HearthTesting",
            swiftSettings: swiftSettings
        ),

        // MARK: - Services
        .target(
            name: "BusService",
            dependencies: [
                "CMalloc", "HearthBus", "HearthHost",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Bus/BusService",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hearth-bus",
            dependencies: [
                "BusService",
                "HearthBus", "HearthHost",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Bus/hearth-bus",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "StoreService",
            dependencies: [
                "HearthBus", "HearthHost",
                "HearthCalendar",
                "HearthCore",
                "HearthTrust",
                .product(name: "CSV", package: "CSV.swift"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Store/StoreService",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hearth-store",
            dependencies: [
                "StoreService",
                "HearthBus", "HearthHost",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Store/hearth-store",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TurnService",
            dependencies: [
                "HearthBus", "HearthHost",
                "HearthCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Turn/TurnService",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SyncService",
            dependencies: [
                "HearthBus", "HearthHost",
                "HearthCore",
                "HearthPairing",
                "HearthTrust",
                "CZlib",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Sync/SyncService",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hearth-sync",
            dependencies: [
                "SyncService",
                "HearthBus", "HearthHost",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Sync/hearth-sync",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hearth-turn",
            dependencies: [
                "TurnService",
                "HearthBus", "HearthHost",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Turn/hearth-turn",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SchedulerService",
            dependencies: [
                "HearthBus", "HearthHost",
                "HearthCalendar",
                "HearthCore",
                "CCurl",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Scheduler/SchedulerService",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hearth-scheduler",
            dependencies: [
                "SchedulerService",
                "HearthBus", "HearthHost",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Scheduler/hearth-scheduler",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NotifierService",
            dependencies: [
                "HearthBus", "HearthHost",
                "HearthCore",
                "HearthNotify",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Notifier/NotifierService",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hearth-notifier",
            dependencies: [
                "NotifierService",
                "HearthBus", "HearthHost",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Notifier/hearth-notifier",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "WebService",
            dependencies: [
                "HearthBus", "HearthHost",
                "HearthCore",
                "HearthCalendar",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Web/WebService",
            resources: [.copy("Templates"), .copy("Assets")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hearth-web",
            dependencies: ["WebService", "HearthBus", "HearthHost"],
            path: "Services/Web/hearth-web",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HearthCLI",
            dependencies: [
                "CQREncode",
                "HearthBus", "HearthHost",
                "HearthCalendar",
                "HearthTrust",
                "StoreService",
                "HearthCore",
                "HearthNotify",
                "HearthPDF",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "CSV", package: "CSV.swift"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Services/CLI/HearthCLI",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hearth",
            dependencies: ["HearthCLI"],
            path: "Services/CLI/hearth",
            swiftSettings: swiftSettings
        ),
        // The Debian package's single executable (`make deb`): the command line, and each
        // service when called by its name.
        .executableTarget(
            name: "hearth-multicall",
            dependencies: [
                "HearthCLI", "BusService", "StoreService", "SyncService", "TurnService", "SchedulerService",
                "NotifierService", "WebService",
            ],
            path: "Services/CLI/hearth-multicall",
            swiftSettings: swiftSettings
        ),

        // MARK: - Benchmarks
        .executableTarget(
            name: "hearth-bench",
            dependencies: [
                "CZeroMQ", "CLibNotify",
                "HearthBus", "HearthHost",
                "HearthCalendar",
                "HearthCore",
                "HearthNotify",
                "HearthTesting",
                "HearthTrust",
                "BusService",
                "StoreService",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Benchmarks/hearth-bench",
            swiftSettings: swiftSettings
        ),

        // MARK: - Tests
        .executableTarget(
            name: "hearth-fixture",
            dependencies: [
                "HearthBus", "HearthHost",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/Fixtures/hearth-fixture",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hearth-notification-test-server",
            dependencies: ["CLibNotify", "HearthBus"],
            path: "Tests/Fixtures/hearth-notification-test-server",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HearthCoreTests",
            dependencies: ["HearthCore", "HearthTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HearthPairingTests",
            dependencies: ["HearthPairing", "HearthCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HearthTrustTests",
            dependencies: ["HearthTrust", "HearthCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HearthCalendarTests",
            dependencies: ["HearthCalendar", "HearthCore", "HearthBus", "HearthHost", "HearthTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HearthBusTests",
            dependencies: [
                "HearthBus", "HearthHost", "HearthTesting", "CZeroMQ",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BusServiceTests",
            dependencies: ["BusService", "HearthBus", "HearthHost", "HearthTesting", "CZeroMQ"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StoreServiceTests",
            dependencies: [
                "StoreService", "HearthBus", "HearthHost", "HearthCore", "HearthPDF", "HearthTesting", "HearthTrust",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NotifierServiceTests",
            dependencies: ["NotifierService", "HearthBus", "HearthHost", "HearthCore", "HearthNotify"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SyncServiceTests",
            dependencies: [
                "SyncService", "StoreService", "HearthBus", "HearthHost", "HearthCore", "HearthPairing",
                "HearthTesting",
                "HearthTrust",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TurnServiceTests",
            dependencies: [
                "TurnService", "HearthBus", "HearthHost", "HearthCore", "HearthTesting",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SchedulerServiceTests",
            dependencies: [
                "SchedulerService", "StoreService", "BusService", "HearthCalendar", "HearthBus", "HearthHost",
                "HearthCore",
                "HearthTesting", .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HearthCLITests",
            dependencies: ["HearthCLI", "HearthBus", "HearthHost", "HearthCore", "HearthTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WebServiceTests",
            dependencies: [
                "WebService", "HearthBus", "HearthHost", "HearthCore", "HearthTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NetworkTests",
            dependencies: [
                "HearthBus", "HearthHost", "HearthCore", "HearthTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "HearthBus", "HearthHost", "HearthCore", "HearthNotify", "HearthTesting", "CZeroMQ",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
