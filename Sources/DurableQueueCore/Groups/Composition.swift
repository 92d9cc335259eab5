/// A sequence or concurrent group of jobs, nested as deep as needed, to enqueue as one unit with
/// ``JobQueue/enqueue(_:)``.
///
/// Every part is a row in the file, so a sequence killed between two steps goes on with the next step
/// after a restart, and a group killed half-way runs only the children not yet done.
///
/// For example:
/// ```swift
/// let handle = try await queue.enqueue(.sequence([
///     .job(Download.self, url, name: "download"),
///     .jobUsingPreviousOutput(Unzip.self, name: "unzip"),
///     .group([
///         .job(Resize.self, 100, name: "small"),
///         .job(Resize.self, 800, name: "large"),
///     ], maxConcurrent: 2, name: "thumbnails"),
/// ]))
/// let small: String = try await handle.result().group("thumbnails")!.output("small")
/// ```
public struct Composition: Sendable {
    /// Builds the store's description, encoding inputs (which may throw) at enqueue time; jobs
    /// without a priority of their own get `inherited`, and every job the enqueuer's trace context.
    /// Paths in inputs are stored relative to `files`' bases (see ``StoresFilePaths``).
    let node: @Sendable (_ now: Int64, _ inherited: Priority?, _ traceContext: String?, _ files: FileLocations) throws -> CompositionNode

    /// A job with `input`, named `name` within its group. Without a priority in `options` it takes
    /// its group's (or sequence's).
    public static func job<J: Job>(
        _ type: J.Type, _ input: J.Input, name: String? = nil, options: EnqueueOptions = EnqueueOptions()
    ) -> Composition {
        Composition { now, inherited, traceContext, files in
            .job(
                try options.newJob(
                    J.self, input: try files.storedJSON(input), now: now, inheriting: inherited, traceContext: traceContext),
                name: name, takesPreviousOutput: false)
        }
    }

    /// A step of a sequence whose input is the output of the step before it (for a group before it,
    /// an object of its children's outputs by name). The output must decode as `J.Input`, else the
    /// step fails without retrying.
    public static func jobUsingPreviousOutput<J: Job>(
        _ type: J.Type, name: String? = nil, options: EnqueueOptions = EnqueueOptions()
    ) -> Composition {
        Composition { now, inherited, traceContext, files in
            .job(
                try options.newJob(J.self, input: "null", now: now, inheriting: inherited, traceContext: traceContext),
                name: name, takesPreviousOutput: true)
        }
    }

    /// Steps that run one after another. A step that does not succeed (after its retries) ends the
    /// sequence `failed` (or `cancelled`) and cancels the steps after it.
    ///
    /// - Parameters:
    ///   - steps: The steps, in order: jobs, or nested sequences and groups.
    ///   - name: The sequence's name, by which an enclosing group's result finds its output.
    ///   - priority: The priority of every step without one of its own; nil: the enclosing
    ///     group's, or the enqueuing job's, else `.normal`.
    public static func sequence(_ steps: [Composition], name: String? = nil, priority: Priority? = nil) -> Composition {
        Composition { now, inherited, traceContext, files in
            .group(.sequence, try steps.map { try $0.node(now, priority ?? inherited, traceContext, files) }, maxConcurrent: 0, name: name)
        }
    }

    /// Children that run in parallel, at most `maxConcurrent` at once (0: no limit of its own; each
    /// queue's limits still hold). The group ends when every child has; it `succeeded` if all did.
    ///
    /// - Parameters:
    ///   - children: The children: jobs, or nested sequences and groups.
    ///   - maxConcurrent: The most children running at once; 0 for no limit of its own.
    ///   - name: The group's name, by which an enclosing group's result finds its output.
    ///   - priority: The priority of every child without one of its own; nil: the enclosing
    ///     group's, or the enqueuing job's, else `.normal`.
    public static func group(
        _ children: [Composition], maxConcurrent: Int = 0, name: String? = nil, priority: Priority? = nil
    ) -> Composition {
        Composition { now, inherited, traceContext, files in
            .group(.concurrent, try children.map { try $0.node(now, priority ?? inherited, traceContext, files) }, maxConcurrent: maxConcurrent, name: name)
        }
    }
}
