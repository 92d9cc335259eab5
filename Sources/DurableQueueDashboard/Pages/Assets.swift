/// The dashboard's stylesheet and script, served from `/assets/` (the pages allow no inline code).
enum Assets {
    /// Readable from a phone's width up: tables scroll sideways inside their box, forms wrap.
    static let stylesheet = """
        :root { --fg: #1d2330; --muted: #5b6475; --line: #dde2ea; --bg: #f6f8fb; --accent: #2456c7; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
        header { display: flex; flex-wrap: wrap; align-items: center; gap: 12px; padding: 10px 16px; background: #1d2330; }
        header a { color: #fff; text-decoration: none; }
        header nav { display: flex; gap: 14px; flex: 1; }
        .brand { font-weight: 700; margin-right: 8px; }
        .live { font-size: 12px; color: #9aa3b5; }
        .live.on::before { content: "● "; color: #3ccf7a; }
        main { padding: 12px 16px 40px; max-width: 1200px; margin: 0 auto; }
        h1 { font-size: 22px; margin: 8px 0 12px; overflow-wrap: anywhere; }
        h2 { font-size: 17px; margin: 22px 0 8px; }
        a { color: var(--accent); }
        .scroll { overflow-x: auto; background: #fff; border: 1px solid var(--line); border-radius: 6px; }
        table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
        th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; vertical-align: top; }
        th { font-size: 12px; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); background: #fafbfd; }
        td.wrap { white-space: normal; overflow-wrap: anywhere; }
        .badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; background: #e8ebf1; }
        .badge.pending { background: #e3ecff; color: #1f4fb8; } .badge.running { background: #fff1cf; color: #8a5a00; }
        .badge.succeeded { background: #dcf5e6; color: #16713f; } .badge.failed { background: #fde2e1; color: #a32018; }
        .badge.cancelled { background: #ececec; color: #555; } .badge.scheduled { background: #efe4ff; color: #5d2fb0; }
        .badge.blocked { background: #f3f3f3; color: #777; } .badge.handed_off { background: #e0f4f7; color: #0b6577; }
        .badge.waiting { background: #f4ecfb; color: #6b3fa0; }
        .badge.parked { background: #fdf3e1; color: #8a5a00; }
        dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 14px; background: #fff; border: 1px solid var(--line);
             border-radius: 6px; padding: 10px 14px; margin: 0; }
        dt { color: var(--muted); } dd { margin: 0; overflow-wrap: anywhere; }
        pre { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px; margin: 0;
              white-space: pre-wrap; overflow-wrap: anywhere; max-height: 480px; overflow-y: auto; }
        progress { width: 60%; max-width: 320px; vertical-align: middle; }
        form.filters { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0 12px; }
        form.filters input, form.filters select { padding: 5px 8px; border: 1px solid var(--line); border-radius: 5px; font: inherit; min-width: 0; }
        form.filters input[name=q] { flex: 1 1 180px; }
        form.action { display: inline; margin: 0 6px 0 0; }
        button { font: inherit; padding: 4px 12px; border-radius: 5px; border: 1px solid #b8c2d6; background: #fff; cursor: pointer; }
        button.danger { border-color: #e0a19d; color: #a32018; }
        .legend span { margin-right: 12px; font-size: 13px; }
        section.activity { margin: 14px 0 20px; } svg.chart { max-width: 720px; display: block; background: #fff; border: 1px solid var(--line); border-radius: 6px; }
        .figures { font-size: 13px; color: var(--muted); margin: 4px 0; }
        a.button { display: inline-block; padding: 4px 12px; border-radius: 5px; border: 1px solid #b8c2d6; background: #fff; text-decoration: none; }
        button:disabled { opacity: .45; cursor: not-allowed; }
        .actions { margin: 10px 0; }
        .notice { background: #fff8e1; border: 1px solid #f0dc9c; padding: 6px 10px; border-radius: 6px; font-size: 13px; }
        .error { color: #a32018; overflow-wrap: anywhere; }
        .empty, .muted { color: var(--muted); }
        @media (max-width: 600px) { body { font-size: 14px; } main { padding: 8px 10px 30px; } dl { gap: 2px 10px; padding: 8px 10px; }
          th, td { padding: 5px 7px; } }
        """

    /// Live updates: the server says when the store changed (server-sent events); the page then
    /// fetches itself and swaps its main part, unless the reader is typing in a filter.
    static let script = """
        "use strict";
        (function () {
          const live = document.getElementById("live");
          let busy = false, again = false;
          async function refresh() {
            if (busy) { again = true; return; }
            const focused = document.activeElement;
            if (focused && focused.closest && focused.closest("#main") && focused.matches("input, select")) return;
            busy = true;
            try {
              const response = await fetch(location.href, { headers: { "Accept": "text/html" }, cache: "no-store" });
              if (response.ok) {
                const page = new DOMParser().parseFromString(await response.text(), "text/html");
                const fresh = page.getElementById("main");
                if (fresh) document.getElementById("main").replaceWith(fresh);
              }
            } catch (error) { /* the next change tries again */ }
            busy = false;
            if (again) { again = false; refresh(); }
          }
          if (!window.EventSource) return;
          live.textContent = "live";
          const events = new EventSource("/api/events");
          events.addEventListener("open", () => live.classList.add("on"));
          events.addEventListener("error", () => live.classList.remove("on"));
          events.addEventListener("change", refresh);
        })();
        """
}
