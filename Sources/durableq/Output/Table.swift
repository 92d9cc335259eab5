import Foundation

/// A plain-text table: a header row and left-aligned columns two spaces apart.
struct Table {
    /// The column titles.
    var header: [String]
    /// The rows, each with one cell per column.
    var rows: [[String]] = []

    /// The table as lines of text (the header first); columns are as wide as their widest cell.
    var lines: [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.indices.map { column in
                column == row.count - 1 ? row[column] : row[column].padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }

    /// Prints the table to standard output.
    func print() {
        for line in lines { Terminal.print(line) }
    }
}
