/// The rules of durable steps, which both stores apply: who may record a step, and the history's words.
package enum StepRule {
    /// The history's reason for step `name` recorded by an attempt.
    package static func reason(recorded name: String) -> String { "step '\(name)' recorded" }

    /// Whether `name` is a step name: not empty.
    package static func isValid(name: String) -> Bool { !name.isEmpty }
}
