import Testing

extension Tag {
    /// Tests that start, kill, freeze or starve real processes: serialized, and slower than the rest.
    @Tag package static var crash: Self
}
