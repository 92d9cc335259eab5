/// The rules of durable steps, which both stores apply: who may record a step, and the history's words.
package enum StepRule {
    /// The history's reason for step `name` recorded by an attempt.
    package static func reason(recorded name: String) -> String { "step '\(name)' recorded" }

    /// Whether `name` is a step name: not empty.
    package static func isValid(name: String) -> Bool { !name.isEmpty }

    /// The output recorded for step `name`: under its name, else under the first of its `former`
    /// names (newest first) that has one; nil when none has.
    package static func recordedOutput(of name: String, formerly former: [String], in recorded: [String: String]) -> String? {
        if let output = recorded[name] { return output }
        return former.lazy.compactMap { recorded[$0] }.first
    }

    /// The history's note of the steps `recorded` by earlier attempts that the attempt ending a job
    /// never `asked` for (by name or former name): code that no longer asks for them, or renamed
    /// them without naming what they were. Nil when there are none.
    package static func unaskedNote(recorded: Set<String>, asked: Set<String>) -> String? {
        let unasked = recorded.subtracting(asked).sorted()
        guard !unasked.isEmpty else { return nil }
        return "recorded steps not asked for: " + unasked.map { "'\($0)'" }.joined(separator: ", ")
    }
}
