import DurableQueue
import Foundation
import Logging
import PostgresNIO

/// The database server's clock, read through this machine's: every node of one database stamps
/// leases, schedules and history with the same time, whatever its own clock says.
///
/// The offset between the two clocks is measured when the store opens. An offset within the
/// measurement's error (half the round trip) is taken as none: a server on the same machine, or
/// one whose clock is synchronised with this machine's, leaves times as this machine reads them.
package struct DatabaseClock: TimeSource {
    /// How far the server's clock is ahead of this machine's.
    package let offset: TimeInterval

    package func now() -> Date { Date().addingTimeInterval(offset) }

    package func sleep(until deadline: Date) async throws {
        try await SystemTimeSource().sleep(until: deadline.addingTimeInterval(-offset))
    }

    /// Reads the server's clock; keeps the reading with the shortest round trip of three.
    static func measure(client: PostgresClient, logger: Logger) async throws -> DatabaseClock {
        try await client.withConnection { connection in
            let session = PostgresSession(connection: connection, logger: logger)
            var best: (roundTrip: TimeInterval, offset: TimeInterval)?
            for _ in 0..<3 {
                let sent = Date()
                let server = try await session.int64("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint") ?? 0
                let received = Date()
                let roundTrip = received.timeIntervalSince(sent)
                let local = sent.timeIntervalSince1970 + roundTrip / 2
                if best == nil || roundTrip < best!.roundTrip { best = (roundTrip, Double(server) / 1000 - local) }
            }
            guard let best else { return DatabaseClock(offset: 0) }
            // The server's reading is rounded to a millisecond too.
            let uncertainty = best.roundTrip / 2 + 0.001
            return DatabaseClock(offset: abs(best.offset) <= uncertainty ? 0 : best.offset)
        }
    }
}
