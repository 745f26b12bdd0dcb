import HearthCore

/// The replicated log's operation; declared here so it shadows `Foundation.Operation`.
typealias Operation = HearthCore.Operation
