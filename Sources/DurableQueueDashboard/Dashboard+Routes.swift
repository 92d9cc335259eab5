import DurableQueue
import DurableQueueInspection
import Foundation
import Hummingbird

extension Dashboard {
    /// Every route: pages, their JSON twins under `/api/`, the actions (POST), live updates and assets.
    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        let guardMiddleware = AccessGuard<BasicRequestContext>(token: token, loopbackOnly: Self.isLoopback(configuration.host))
        router.add(middleware: guardMiddleware)

        router.get("/") { request, _ -> Response in .html(try await overviewPage(actionsEnabled: guardMiddleware.isAuthorized(request))) }
        router.get("/jobs") { request, _ -> Response in .html(try await jobsPage(request, actionsEnabled: guardMiddleware.isAuthorized(request))) }
        router.get("/activity") { request, _ -> Response in
            .html(ActivityPage(activity: try await activity(), actionsEnabled: guardMiddleware.isAuthorized(request)).render())
        }
        router.get("/api/activity") { _, _ -> Response in .json(.array(try await activity().map(\.json))) }
        router.get("/failed") { request, _ -> Response in .html(try await failedPage(request, actionsEnabled: guardMiddleware.isAuthorized(request))) }
        router.get("/jobs/:id") { request, context -> Response in
            let id = try RequestValues.jobID(context)
            let (job, history, steps, dependencies) = try await reading {
                (
                    try await queue.reader.job(id), try await queue.reader.history(of: id), try await queue.reader.steps(of: id),
                    try await queue.reader.dependencies(of: id)
                )
            }
            return .html(
                JobPage(job: job, history: history, steps: steps, dependencies: dependencies, actionsEnabled: guardMiddleware.isAuthorized(request))
                    .render())
        }
        router.get("/queues/:name/keys") { request, context -> Response in
            let name = try RequestValues.queueName(context)
            let (configuration, keys) = try await queueKeys(name)
            return .html(
                KeysPage(
                    queue: configuration, keys: keys, now: Date().millisecondsSince1970, actionsEnabled: guardMiddleware.isAuthorized(request)
                ).render())
        }
        router.get("/api/queues/:name/keys") { _, context -> Response in
            .json(.array(try await queueKeys(try RequestValues.queueName(context)).1.map(\.json)))
        }
        router.get("/groups/:id") { request, context -> Response in
            let id = try RequestValues.groupID(context)
            let group = try await reading { try await queue.reader.groupResult(id) }
            return .html(GroupPage(group: group, actionsEnabled: guardMiddleware.isAuthorized(request)).render())
        }

        router.get("/api/queues") { _, _ -> Response in .json(.array(try await reading { try await queue.reader.queueStatuses() }.map(\.json))) }
        router.get("/api/jobs") { request, _ -> Response in
            let filter = try RequestValues.jobFilter(request)
            let (jobs, total) = try await reading { (try await queue.reader.jobs(filter), try await queue.reader.count(filter)) }
            return .json(.object([("total", .int(Int64(total))), ("jobs", .array(jobs.map(\.json)))]))
        }
        router.get("/api/jobs/:id") { _, context -> Response in
            let id = try RequestValues.jobID(context)
            return .json(try await jobJSON(id))
        }
        router.get("/api/groups") { _, _ -> Response in .json(.array(try await reading { try await queue.reader.groups(limit: 100) }.map(\.json))) }
        router.get("/api/groups/:id") { _, context -> Response in
            let id = try RequestValues.groupID(context)
            return .json(try await reading { try await queue.reader.groupResult(id) }.json)
        }
        router.get("/api/schedules") { _, _ -> Response in .json(.array(try await reading { try await queue.schedules.list() }.map(\.json))) }
        router.get("/api/events") { _, _ -> Response in liveUpdates() }

        router.post("/api/jobs/bulk") { request, _ -> Response in try await bulk(request) }
        router.post("/api/jobs/:id/cancel") { request, context -> Response in try await cancel(request, context) }
        router.post("/api/jobs/:id/retry") { request, context -> Response in try await retry(request, context) }
        router.post("/api/jobs/:id/signal") { request, context -> Response in try await signal(request, context) }
        router.post("/api/queues/:name/pause") { request, context -> Response in try await setPaused(true, request, context) }
        router.post("/api/queues/:name/resume") { request, context -> Response in try await setPaused(false, request, context) }
        router.post("/api/queues/:name/key-limits") { request, context -> Response in try await setKeyLimits(request, context) }

        router.get("/assets/dashboard.css") { _, _ -> Response in Self.asset(Assets.stylesheet, type: "text/css; charset=utf-8") }
        router.get("/assets/dashboard.js") { _, _ -> Response in Self.asset(Assets.script, type: "text/javascript; charset=utf-8") }
        return router
    }

    /// The result of `body`, a library error turned into the failure it stands for.
    func reading<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as DurableQueueError {
            throw DashboardFailure(error)
        }
    }

    /// Queue `name`'s settings and its unfinished jobs by partition key.
    private func queueKeys(_ name: String) async throws -> (QueueConfiguration, [KeyCounts]) {
        try await reading {
            guard let configuration = try await queue.reader.queue(named: name) else {
                throw DashboardFailure(.notFound, "there is no queue named '\(name)'")
            }
            return (configuration, try await queue.reader.keyCounts(queue: name))
        }
    }

    /// The job with its history and steps, as `durableq show --json` prints it.
    func jobJSON(_ id: JobID) async throws -> JSONValue {
        let (job, history, steps, dependencies) = try await reading {
            (
                try await queue.reader.job(id), try await queue.reader.history(of: id), try await queue.reader.steps(of: id),
                try await queue.reader.dependencies(of: id)
            )
        }
        return job.json(history: history, steps: steps, dependencies: dependencies)
    }

    private func overviewPage(actionsEnabled: Bool) async throws -> String {
        let (queues, schedules, groups) = try await reading {
            (try await queue.reader.queueStatuses(), try await queue.schedules.list(), try await queue.reader.groups(limit: 20))
        }
        return OverviewPage(
            location: queue.location, queues: queues, schedules: schedules, groups: groups, now: Date().millisecondsSince1970,
            actionsEnabled: actionsEnabled
        ).render()
    }

    private func jobsPage(_ request: Request, actionsEnabled: Bool) async throws -> String {
        let filter = try RequestValues.jobFilter(request)
        let (jobs, total, queueNames) = try await reading {
            (try await queue.reader.jobs(filter), try await queue.reader.count(filter), try await queue.reader.queueNames())
        }
        let notice = try await bulkNotice(request, filter: filter, actionsEnabled: actionsEnabled)
        return JobsPage(filter: filter, jobs: jobs, total: total, queueNames: queueNames, actionsEnabled: actionsEnabled, bulk: notice).render()
    }

    /// Each queue's activity over the last hour, from its jobs' history.
    private func activity() async throws -> [QueueActivity] {
        let now = Date().millisecondsSince1970
        let since = now - Int64(QueueActivity.minutes) * 60_000
        let (events, due) = try await reading {
            (try await queue.reader.recentEvents(since: since, jobLimit: QueueActivity.jobLimit), try await queue.reader.oldestDue())
        }
        return QueueActivity.summarize(events: events, oldestDue: due, now: now)
    }

    private func failedPage(_ request: Request, actionsEnabled: Bool) async throws -> String {
        var filter = try RequestValues.jobFilter(request)
        filter = JobFilter(states: [.failed], queues: filter.queues, limit: filter.limit)
        let (jobs, total, queueNames) = try await reading {
            (try await queue.reader.jobs(filter), try await queue.reader.count(filter), try await queue.reader.queueNames())
        }
        return FailedPage(queueName: filter.queues?.first, jobs: jobs, total: total, queueNames: queueNames, actionsEnabled: actionsEnabled).render()
    }

    private static func asset(_ text: String, type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "max-age=300"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// Whether `host` (a name or address, without a port) is this machine's loopback interface.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
