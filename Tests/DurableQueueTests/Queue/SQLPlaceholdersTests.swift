import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// An application's statement is written one way for every store; each store rewrites its
/// parameters into the form its database reads.
@Suite struct SQLPlaceholdersTests {
    @Test func questionMarksAreNumberedAsSQLiteNumbersThem() {
        #expect(SQLPlaceholders.rewrite("SELECT ?, ?3, ?, $1", to: .dollar) == "SELECT $1, $3, $4, $1")
        #expect(SQLPlaceholders.rewrite("SELECT ?, ?3, ?, $1", to: .question) == "SELECT ?1, ?3, ?4, ?1")
    }

    @Test func dollarNumbersKeepTheirNumberInAnyOrder() {
        #expect(SQLPlaceholders.rewrite("UPDATE t SET a = $2 WHERE id = $1 OR id = $1", to: .question)
            == "UPDATE t SET a = ?2 WHERE id = ?1 OR id = ?1")
    }

    @Test func aStatementAlreadyInTheStoresFormIsLeftAsItIs() {
        let sqlite = "INSERT INTO t (a, b) VALUES (?1, ?2)"
        let postgres = "INSERT INTO t (a, b) VALUES ($1, $2)"
        #expect(SQLPlaceholders.rewrite(sqlite, to: .question) == sqlite)
        #expect(SQLPlaceholders.rewrite(postgres, to: .dollar) == postgres)
        #expect(SQLPlaceholders.rewrite("SELECT 1", to: .dollar) == "SELECT 1")
    }

    @Test func literalsQuotedNamesCommentsAndIdentifiersAreNotParameters() {
        let sql = """
            SELECT 'it''s ? $1', "col?$2", a$1, $q$ ? $1 $q$, $$?$$ -- ? $3
            /* ? $4 */ FROM t WHERE x = ?
            """
        #expect(SQLPlaceholders.rewrite(sql, to: .dollar) == """
            SELECT 'it''s ? $1', "col?$2", a$1, $q$ ? $1 $q$, $$?$$ -- ? $3
            /* ? $4 */ FROM t WHERE x = $1
            """)
    }
}
