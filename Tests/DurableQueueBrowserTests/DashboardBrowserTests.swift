import DurableQueue
import DurableQueueDashboard
import DurableQueueDashboardTestSupport
import DurableQueueTestSupport
import Foundation
import Testing

/// The dashboard in a real headless Chromium: pages render, their script starts live updates,
/// actions are enabled by the token URL, every page keeps its controls in sight at a desktop's and
/// a phone's width, and screenshots come out. Set
/// `DQ_SCREENSHOTS` to a directory to keep the screenshots (the dashboard article's, in `DurableQueueCore.docc/Resources`, come from here).
@Suite(.timeLimit(.minutes(3)), .enabled(if: TestEnvironment.serversEnabled, Comment(rawValue: TestEnvironment.skipReason)))
struct DashboardBrowserTests {
    /// A queue of mail, a throttled API queue, a sequence, a schedule and a failed job with progress.
    private func populate(_ queue: JobQueue) async throws -> JobID {
        try await queue.queues.configure(QueueConfiguration("api", throttle: Throttle(.milliseconds(400))))
        for index in 0..<5 { _ = try await queue.enqueue(Echo.self, "receipt \(index)", options: EnqueueOptions(queue: "mail", tags: ["billing"])) }
        for index in 0..<3 { _ = try await queue.enqueue(Echo.self, "call \(index)", options: EnqueueOptions(queue: "api")) }
        _ = try await queue.enqueue(.sequence([.job(Echo.self, "fetch", name: "fetch"), .job(Echo.self, "resize", name: "resize")], name: "thumbnails"))
        try await queue.schedules.save(name: "nightly-report", Echo.self, input: "report", rule: .cron("0 3 * * *"))
        let failed = try await queue.enqueue(Refuse.self, "upload invoice-2026-11.pdf to the archive", options: EnqueueOptions(queue: "mail"))
        _ = try await queue.runDueJobs()  // all but two API calls, which the throttle holds back
        _ = try await queue.enqueue(Echo.self, "later", options: EnqueueOptions(queue: "mail", delay: .seconds(600)))
        return failed.id
    }

    @Test func theQueueAndJobPagesRenderInChromiumWithActionsEnabledByTheTokenURL() async throws {
        let chromium = try Chromium.find()
        defer { chromium.profile.remove() }
        try await DashboardFixture.with { fixture in
            let failed = try await populate(fixture.workers)
            let token = "?token=\(fixture.dashboard.token)"

            let overview = try await chromium.renderedDOM(fixture.base + "/" + token)
            #expect(overview.contains("<h1>Queues</h1>"))
            for name in ["mail", "api", "thumbnails", "nightly-report", "1 per 400ms"] { #expect(overview.contains(name), "\(name)") }
            #expect(overview.contains("title=\"updates as the queue changes\">live</span>"), "the page's script started live updates")
            #expect(overview.contains(">Pause</button>") && !overview.contains("disabled"), "the token URL enabled the actions")
            #expect(!overview.contains("Read-only"))

            let job = try await chromium.renderedDOM(fixture.base + "/jobs/\(failed.rawValue)" + token)
            #expect(job.contains("Job \(failed.rawValue)"))
            #expect(job.contains("upload invoice-2026-11.pdf to the archive"))
            #expect(job.contains("refused on purpose"))
            #expect(job.contains(">Retry</button>"))
            #expect(job.contains("<span class=\"badge running\">running</span>") && job.contains("<span class=\"badge failed\">failed</span>"))

            let activity = try await chromium.renderedDOM(fixture.base + "/activity" + token)
            #expect(activity.contains("<h1>Activity</h1>") && activity.contains("<svg class=\"chart\"") && activity.contains("<rect"))
            let failedPage = try await chromium.renderedDOM(fixture.base + "/failed" + token)
            #expect(failedPage.contains("refused on purpose") && failedPage.contains("Retry all 1 failed job(s)"))

            let readOnly = try await chromium.renderedDOM(fixture.base + "/jobs/\(failed.rawValue)")
            #expect(readOnly.contains("Read-only") && readOnly.contains("disabled"))

            // Every page at a desktop's and a phone's width: no button or field out of sight, the
            // page no wider than the window (tables scroll sideways inside their box).
            let pages = ["/", "/jobs", "/jobs/\(failed.rawValue)", "/activity", "/failed", "/groups/1", "/queues/api/keys"]
            for path in pages {
                for width in [1280, 390] {
                    let hidden = try await chromium.hiddenControls(fixture.base + path + token, width: width)
                    #expect(hidden.isEmpty, "\(path) at \(width) px: \(hidden)")
                }
            }

            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let shots = [
                ("dashboard-queues.png", "/", 1280, 600), ("dashboard-jobs.png", "/jobs", 1280, 600),
                ("dashboard-job-phone.png", "/jobs/\(failed.rawValue)", 390, 844), ("dashboard-activity.png", "/activity", 1280, 700),
                ("dashboard-failed.png", "/failed", 1280, 420),
            ]
            for (name, path, width, height) in shots {
                let file = directory.path(name)
                try await chromium.screenshot(fixture.base + path + token, to: file, width: width, height: height)
                let image = try PNGImage(contentsOf: file)
                #expect(image.width == width && image.height == height, "\(name): \(image.width)×\(image.height)")
                #expect(try Data(contentsOf: URL(fileURLWithPath: file)).count > 10_000, "\(name) shows more than a blank page")
                if let keep = ProcessInfo.processInfo.environment["DQ_SCREENSHOTS"] {
                    let target = URL(fileURLWithPath: keep).appendingPathComponent(name)
                    try? FileManager.default.removeItem(at: target)
                    try FileManager.default.copyItem(atPath: file, toPath: target.path)
                }
            }
        }
    }
}
