import Foundation
import PackagePlugin

/// Stamps the package version and the git commit into the target it is applied to
/// (`HearthVersion.version`, `.commit`), by running `deploy/version-stamp` before each build.
/// The script rewrites its file only when the commit or version changed, so a build of an
/// unchanged tree recompiles nothing.
@main
struct VersionStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "stamp")
        return [
            .prebuildCommand(
                displayName: "Stamping the version and git commit into \(target.name)",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [
                    root.appending(path: "deploy/version-stamp").path(percentEncoded: false),
                    root.path(percentEncoded: false), output.path(percentEncoded: false),
                ],
                outputFilesDirectory: output)
        ]
    }
}
