extension JobQueue {
    /// `path` as this queue stores it: `{base}/rest` under the deepest of the queue's
    /// ``Configuration/fileBases`` that holds it (the queue file's directory, application support,
    /// caches, temporary, an app group's container, or one of your own), else the path made
    /// absolute. Stored so, a path still names the right file after the app's container, or the
    /// tree with the queue file, moved. Inputs and outputs that conform to ``StoresFilePaths`` are
    /// stored so without this call; use it for paths kept elsewhere (a checkpoint, say).
    public func storedPath(_ path: String) -> String {
        files.stored(path)
    }

    /// The path that `stored` (a ``storedPath(_:)``) names now, wherever its base is in this
    /// process; a path in no base's form is returned as it is.
    ///
    /// - Throws: `invalidArgument` when it lies under a base this process does not know (an app
    ///   group or a directory missing from ``Configuration/fileBases``).
    public func resolvedPath(_ stored: String) throws -> String {
        try files.resolved(stored)
    }

    /// Job `id`'s input as `T`, its stored paths resolved: what a handler would receive. For code
    /// that finishes a job from outside its handler (a carrier's report).
    ///
    /// - Throws: `jobNotFound`, or a decoding error when the input is not a `T`.
    package func resolvedInput<T: Decodable>(_ type: T.Type, ofJob id: JobID) async throws -> T {
        try files.resolvedValue(T.self, from: try await store.job(id).input)
    }
}
