#include "common/sqlite.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace tessera {
namespace {

struct TestError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void Throw(const SqliteFailure& f) {
  throw TestError(std::string(f.opening ? "open " : "") + (f.corrupt ? "corrupt " : "") + f.what +
                  ": " + f.detail);
}

std::string TempPath(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  return std::string(root ? root : "/tmp") + "/" + name;
}

TEST(SqliteTest, BindsStepsAndReadsColumns) {
  Database db(TempPath("rows.db"), /*create=*/true, Throw);
  db.Exec("CREATE TABLE IF NOT EXISTS t (s TEXT, b BLOB, i INTEGER, r REAL, n TEXT)");
  db.Exec("DELETE FROM t");
  Statement insert(db, "INSERT INTO t VALUES (?, ?, ?, ?, ?)");
  insert.Bind(1, std::string("text")).BindBlob(2, std::string("a\0b", 3));
  insert.Bind(3, int64_t{42}).Bind(4, 2.5).BindNull(5);
  insert.Run();
  Statement select(db, "SELECT s, b, i, r, n FROM t");
  ASSERT_TRUE(select.Step());
  EXPECT_EQ(select.Text(0), "text");
  EXPECT_EQ(select.Text(1), std::string("a\0b", 3));
  EXPECT_EQ(select.Int(2), 42);
  EXPECT_EQ(select.Real(3), 2.5);
  EXPECT_TRUE(select.IsNull(4));
  EXPECT_FALSE(select.Step());
}

int64_t Rows(const Database& db) {
  Statement count(db, "SELECT COUNT(*) FROM t");
  count.Step();
  return count.Int(0);
}

TEST(SqliteTest, ATransactionKeepsItsRowsOnlyWhenCommitted) {
  Database db(TempPath("transaction.db"), /*create=*/true, Throw);
  db.Exec("CREATE TABLE IF NOT EXISTS t (i INTEGER)");
  db.Exec("DELETE FROM t");
  {
    Transaction transaction(db);
    db.Exec("INSERT INTO t VALUES (1)");
    transaction.Commit();
  }
  EXPECT_EQ(Rows(db), 1);
  try {
    Transaction transaction(db);
    db.Exec("INSERT INTO t VALUES (2)");
    db.Exec("INSERT INTO no_such_table VALUES (3)");  // throws half-way
    transaction.Commit();
    FAIL() << "the insert into a missing table did not throw";
  } catch (const TestError&) {
  }
  EXPECT_EQ(Rows(db), 1);
  {
    Transaction transaction(db);  // left without Commit
    db.Exec("INSERT INTO t VALUES (4)");
  }
  EXPECT_EQ(Rows(db), 1);
}

TEST(SqliteTest, FailuresGoToTheOwnersHandler) {
  EXPECT_THROW(Database("/nonexistent/dir/x.db", /*create=*/true, Throw), TestError);
  Database db(TempPath("errors.db"), /*create=*/true, Throw);
  try {
    Statement bad(db, "SELEC nonsense");
    FAIL() << "no throw";
  } catch (const TestError& e) {
    EXPECT_NE(std::string(e.what()).find("preparing a query: "), std::string::npos) << e.what();
  }
}

TEST(SqliteTest, AFileThatIsNotADatabaseIsReportedCorrupt) {
  const std::string path = TempPath("garbage.db");
  std::ofstream(path) << std::string(4096, 'x');
  Database db(path, /*create=*/false, Throw);
  try {
    db.Exec("SELECT count(*) FROM sqlite_master");
    FAIL() << "no throw";
  } catch (const TestError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("corrupt ", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace tessera
