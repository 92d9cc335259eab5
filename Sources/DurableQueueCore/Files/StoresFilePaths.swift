/// A job's input or output that holds file paths, which the queue stores relative to a base
/// directory (see ``FileBases``) and resolves again before a handler or a handle sees them: a
/// moved app container, or a tree of files moved with its queue file, keeps its jobs working.
///
/// Conform an input or output type that names files; leave out those that do not:
/// ```swift
/// struct Thumbnail: Codable, StoresFilePaths {
///     var source: String
///     func mappingFilePaths(_ transform: (String) throws -> String) rethrows -> Thumbnail {
///         Thumbnail(source: try transform(source))
///     }
/// }
/// ```
public protocol StoresFilePaths {
    /// A copy of this value with every file path it holds replaced by `transform`'s result.
    func mappingFilePaths(_ transform: (String) throws -> String) rethrows -> Self
}

extension Optional: StoresFilePaths where Wrapped: StoresFilePaths {
    /// The wrapped value's paths mapped; nil stays nil.
    public func mappingFilePaths(_ transform: (String) throws -> String) rethrows -> Self {
        try map { try $0.mappingFilePaths(transform) }
    }
}

extension Array: StoresFilePaths where Element: StoresFilePaths {
    /// Every element's paths mapped.
    public func mappingFilePaths(_ transform: (String) throws -> String) rethrows -> Self {
        try map { try $0.mappingFilePaths(transform) }
    }
}

extension Dictionary: StoresFilePaths where Value: StoresFilePaths {
    /// Every value's paths mapped (a group's outputs by child name, say).
    public func mappingFilePaths(_ transform: (String) throws -> String) rethrows -> Self {
        try mapValues { try $0.mappingFilePaths(transform) }
    }
}
