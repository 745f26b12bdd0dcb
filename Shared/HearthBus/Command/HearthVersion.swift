/// What every Hearth executable says to `--version`: the package version and the git commit it
/// was built from (both stamped at build time by the `VersionStamp` plugin). Every ping reply
/// carries them too, so `hearth doctor` can tell whether the running services agree.
public enum HearthVersion {
    /// `hearth-bus 0.3.0 (commit 1a2b3c4d5e6f)`.
    public static func line(_ executable: String) -> String { "\(executable) \(version) (commit \(commit))" }

    /// `0.3.0 (commit 1a2b3c4d5e6f)`, for ArgumentParser's `--version`.
    public static var description: String { "\(version) (commit \(commit))" }
}
