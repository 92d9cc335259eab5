extension JobQueue {
    /// Registers `carrier`, which carries attempts handed off to it by name (see ``HandOffCarrier``),
    /// replacing a carrier of the same name. Register it before ``run()`` or a drain: both reconcile
    /// the registered carriers with the store when they start.
    public func register(carrier: some HandOffCarrier) {
        carriers.register(carrier)
    }
}
