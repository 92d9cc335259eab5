/// An attempt given back without counting it (shutdown, a drain's end, a lease that expired before
/// its handler started): the one rule of what its job becomes, which both stores bind into their
/// release statement.
package enum GiveBack {
    /// `cancelled` if a cancel was requested while the attempt ran, else `pending` to run again.
    package static func state(cancelRequested: Bool) -> JobState { cancelRequested ? .cancelled : .pending }
}
