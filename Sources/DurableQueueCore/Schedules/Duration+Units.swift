extension Duration {
    /// `minutes` minutes: `.every(.minutes(15))`.
    public static func minutes(_ minutes: Int) -> Duration { .seconds(minutes * 60) }

    /// `hours` hours.
    public static func hours(_ hours: Int) -> Duration { .seconds(hours * 3_600) }
}
