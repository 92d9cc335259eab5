import Dispatch

/// Suspends for `milliseconds` even when the calling task is cancelled, where `Task.sleep` throws
/// at once: a handler that ignores cancellation in a loop of `try? await Task.sleep` never gives
/// its thread back once cancelled. Two such loops held both cooperative threads of a 2-core
/// machine, and a full test run hung, spinning, with nothing left to open their gates.
package func sleepIgnoringCancellation(milliseconds: Int) async {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { continuation.resume() }
    }
}
