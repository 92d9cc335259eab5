import DurableQueueCore

extension Durability {
    /// The pragmas that set this durability on a connection.
    var pragmas: [String] {
        switch self {
        case .processCrash: ["PRAGMA synchronous = NORMAL", "PRAGMA fullfsync = OFF", "PRAGMA checkpoint_fullfsync = OFF"]
        case .powerLoss: ["PRAGMA synchronous = FULL", "PRAGMA fullfsync = ON", "PRAGMA checkpoint_fullfsync = ON"]
        }
    }
}
