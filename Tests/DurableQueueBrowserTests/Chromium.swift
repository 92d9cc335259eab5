import DurableQueueTestSupport
import Foundation

/// Debian's `chromium`, headless, as a child process: a page's screenshot, or its DOM once its
/// scripts ran.
struct Chromium {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let executable: String
    let profile: TemporaryDirectory

    /// The browser on this machine (`DQ_CHROMIUM`, else `chromium` or `chromium-browser` on PATH).
    ///
    /// - Throws: when there is none, saying how to install it: a browser test never passes without one.
    static func find() throws -> Chromium {
        let environment = ProcessInfo.processInfo.environment
        let candidates =
            [environment["DQ_CHROMIUM"]].compactMap { $0 }
            + (environment["PATH"] ?? "/usr/bin").split(separator: ":").flatMap { directory in
                ["chromium", "chromium-browser"].map { "\(directory)/\($0)" }
            }
        guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Failure(description: "no Chromium: install Debian's `chromium` package (.ci/run does) or set DQ_CHROMIUM")
        }
        return Chromium(executable: executable, profile: try TemporaryDirectory())
    }

    /// Saves a screenshot of `url` at `width`×`height` CSS pixels as a PNG at `path`.
    func screenshot(_ url: String, to path: String, width: Int, height: Int) async throws {
        _ = try await run(["--window-size=\(width),\(height)", "--screenshot=\(path)", url])
        guard FileManager.default.fileExists(atPath: path) else { throw Failure(description: "chromium wrote no screenshot of \(url)") }
    }

    /// The DOM of `url` once it loaded and its scripts ran. (Not with a virtual time budget: that
    /// never ends while the page holds its live-update connection open.)
    func renderedDOM(_ url: String) async throws -> String {
        try await run(["--timeout=15000", "--dump-dom", url])
    }

    /// What the layout of `url` hides at `width` CSS pixels: each button, link-button or form
    /// field that lies outside the window or outside a box that clips it (a table's sideways
    /// scroll), and the page itself when it is wider than the window. Empty when all shows.
    ///
    /// A page of this test's fetches the page's HTML (same-origin rules are off for this browser
    /// profile only), lays it out without its script (its live updates would keep the page
    /// loading) in a frame of that width with its stylesheet, and measures it.
    func hiddenControls(_ url: String, width: Int) async throws -> [String] {
        let wrapper = profile.path("layout-\(UUID().uuidString).html")
        let page = """
            <!doctype html><html><body style="margin:0">
            <iframe id="frame" style="width:\(width)px;height:1000px;border:0"></iframe><pre id="result">not measured</pre>
            <script>
            const frame = document.getElementById("frame"), result = document.getElementById("result");
            function measure() {
              const d = frame.contentDocument, problems = [];
              const view = d.documentElement.clientWidth;
              if (d.documentElement.scrollWidth > view + 1) problems.push("the page is " + d.documentElement.scrollWidth + " px wide");
              for (const control of d.querySelectorAll("button, a.button, input:not([type=hidden]), select")) {
                const box = control.getBoundingClientRect();
                if (box.width === 0) continue;
                const name = (control.textContent || control.name || control.tagName).trim();
                if (box.right > view + 1 || box.left < -1) { problems.push(name + " is outside the window"); continue; }
                for (let parent = control.parentElement; parent; parent = parent.parentElement) {
                  if (getComputedStyle(parent).overflowX === "visible") continue;
                  const clip = parent.getBoundingClientRect();
                  if (box.right > clip.right + 1 || box.left < clip.left - 1) { problems.push(name + " is scrolled out of sight"); break; }
                }
              }
              result.textContent = problems.length ? problems.join("\\n") : "ok";
            }
            (async () => {
              try {
                const url = \(String(reflecting: url));
                const html = (await (await fetch(url)).text()).replace(/<script[\\s\\S]*?<\\/script>/g, "");
                frame.addEventListener("load", measure);
                frame.srcdoc = html.replace(/<head>/, '<head><base href="' + new URL(url).origin + '/">');
              } catch (error) { result.textContent = "not measured: " + error; }
            })();
            </script></body></html>
            """
        try page.write(toFile: wrapper, atomically: true, encoding: .utf8)
        let dom = try await run([
            "--disable-web-security", "--allow-file-access-from-files", "--window-size=\(width + 40),1100", "--virtual-time-budget=10000",
            "--dump-dom", "file://" + wrapper,
        ])
        guard let start = dom.range(of: "<pre id=\"result\">"), let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex)
        else { throw Failure(description: "the layout of \(url) was not measured: \(dom.prefix(500))") }
        let result = String(dom[start.upperBound..<end.lowerBound])
        guard !result.hasPrefix("not measured") else { throw Failure(description: "the layout of \(url) was \(result)") }
        return result == "ok" ? [] : result.split(separator: "\n").map(String.init)
    }

    /// Runs the browser with `arguments`; its standard output. Killed after a minute.
    private func run(_ arguments: [String]) async throws -> String {
        let output = profile.path("output-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: output, contents: nil) else {
            throw Failure(description: "could not create \(output)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--disable-extensions",
                "--user-data-dir=\(profile.path("profile"))",
            ] + arguments
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                throw Failure(description: "chromium \(arguments.joined(separator: " ")) did not finish within a minute")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard process.terminationStatus == 0 else {
            throw Failure(description: "chromium \(arguments.joined(separator: " ")) exited with status \(process.terminationStatus)")
        }
        return try String(contentsOfFile: output, encoding: .utf8)
    }
}

/// A PNG file's size in pixels, read from its header.
struct PNGImage {
    let width: Int
    let height: Int

    init(contentsOf path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)).prefix(24))
        guard bytes.count == 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw Chromium.Failure(description: "\(path) is not a PNG")
        }
        func number(at offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        width = number(at: 16)
        height = number(at: 20)
    }
}
