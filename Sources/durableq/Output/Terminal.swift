import DurableQueueInspection
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard output and error, and what kind of terminal (if any) they are.
enum Terminal {
    /// Whether standard output is a terminal (so progress can redraw in place).
    static var isInteractive: Bool { isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb" }

    /// The terminal's width in columns; 80 when unknown.
    static var width: Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return 80
    }

    /// Writes `text` to standard output at once (no buffering, so redraws and logs stay in order).
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes `line` and a newline to standard output.
    static func print(_ line: String = "") {
        write(line + "\n")
    }

    /// Writes `error: message` to standard error.
    static func printError(_ message: String) {
        FileHandle.standardError.write(Data("durableq: error: \(message)\n".utf8))
    }
}

extension JSONValue {
    /// Prints the value on one line to standard output.
    func print() {
        Terminal.print(text)
    }
}
