import GRDB
import Persistence

/// The tables of a ``ChatStore`` database, created by a `DatabaseMigrator` (one transaction per migration).
///
/// Times are whole milliseconds since 1970, so that a conversation's order is exact; a message's `sortKey` is its
/// server id, or its client message id until the server gave it one. `serverID` is unique, and so is a client message
/// id within one sender's messages to one conversation, as the server keeps it (SQLite lets NULLs repeat): what makes
/// every upsert idempotent, and what keeps one member's client id from ever matching another member's message.
enum ChatStoreSchema {
  /// The tables a chat store file has; a file with other tables and none of these is someone else's.
  static let tables: Set<String> = [
    "workspace", "conversation", "member", "message", "sync", "changeOutcome", "message_search",
    "message_search_data", "message_search_idx", "message_search_docsize", "message_search_config", "readPosition",
    "releasedFile",
  ]

  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("chat-v1") { db in
      try db.execute(
        sql: """
          CREATE TABLE workspace (
            id TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL,
            ownerID TEXT NOT NULL
          ) WITHOUT ROWID;
          CREATE TABLE conversation (
            id TEXT PRIMARY KEY NOT NULL,
            workspaceID TEXT NOT NULL,
            kind TEXT NOT NULL,
            name TEXT NOT NULL,
            joined INTEGER NOT NULL,
            ownerID TEXT,
            unreadCount INTEGER NOT NULL DEFAULT 0,
            lastViewedAt INTEGER NOT NULL DEFAULT 0,
            lastReadMessageID TEXT
          ) WITHOUT ROWID;
          CREATE INDEX conversation_workspace ON conversation(workspaceID, kind);
          CREATE TABLE member (
            scope TEXT NOT NULL,
            userID TEXT NOT NULL,
            nickname TEXT NOT NULL,
            profileURL TEXT,
            PRIMARY KEY (scope, userID)
          ) WITHOUT ROWID;
          CREATE TABLE message (
            rowid INTEGER PRIMARY KEY,
            serverID TEXT UNIQUE,
            clientMessageID TEXT,
            conversationID TEXT NOT NULL,
            senderID TEXT NOT NULL,
            text TEXT NOT NULL,
            images TEXT NOT NULL,
            createdAt INTEGER NOT NULL,
            sortKey TEXT NOT NULL,
            state TEXT NOT NULL,
            failureReason TEXT
          );
          CREATE INDEX message_order ON message(conversationID, createdAt, sortKey);
          CREATE UNIQUE INDEX message_client ON message(conversationID, senderID, clientMessageID);
          """)
    }
    // Where each conversation's last catch-up ended: the next one starts there (Documentation/Decisions/0013).
    migrator.registerMigration("chat-v2-sync") { db in
      try db.execute(
        sql: """
          CREATE TABLE sync (
            conversationID TEXT PRIMARY KEY NOT NULL,
            messageID TEXT NOT NULL
          ) WITHOUT ROWID;
          """)
    }
    // A member's email, which tells two members of one nickname apart (a nickname is anyone's to take).
    migrator.registerMigration("chat-v3-member-email") { db in
      try db.execute(sql: "ALTER TABLE member ADD COLUMN email TEXT")
    }
    // A message the server holds but this client could not take whole: shown as unavailable until a whole copy comes.
    migrator.registerMigration("chat-v4-unavailable") { db in
      try db.execute(sql: "ALTER TABLE message ADD COLUMN unavailable INTEGER NOT NULL DEFAULT 0")
    }
    // A message's number in its conversation, which tells a client what it missed.
    migrator.registerMigration("chat-v5-seq") { db in
      try db.execute(sql: "ALTER TABLE message ADD COLUMN seq INTEGER")
    }
    // How many members a channel has, which its list shows.
    migrator.registerMigration("chat-v6-member-count") { db in
      try db.execute(sql: "ALTER TABLE conversation ADD COLUMN memberCount INTEGER NOT NULL DEFAULT 0")
    }
    // What changes a message after it was sent, the number of its last change, and how far each conversation's
    // changes were caught up (Documentation/Decisions/0022).
    migrator.registerMigration("chat-v7-changes") { db in
      try db.execute(
        sql: """
          ALTER TABLE message ADD COLUMN editedAt INTEGER;
          ALTER TABLE message ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
          ALTER TABLE message ADD COLUMN replyTo TEXT;
          ALTER TABLE message ADD COLUMN replyCount INTEGER NOT NULL DEFAULT 0;
          ALTER TABLE message ADD COLUMN lastReplyID TEXT;
          ALTER TABLE message ADD COLUMN reactions TEXT NOT NULL DEFAULT '[]';
          ALTER TABLE message ADD COLUMN version INTEGER;
          CREATE INDEX message_thread ON message(conversationID, replyTo, createdAt, sortKey) WHERE replyTo IS NOT NULL;
          ALTER TABLE sync ADD COLUMN changeVersion INTEGER;
          CREATE TABLE changeOutcome (
            changeID TEXT PRIMARY KEY NOT NULL,
            refusal TEXT,
            serverCode TEXT,
            statusCode INTEGER,
            settledAt INTEGER NOT NULL
          ) WITHOUT ROWID;
          """)
    }
    // Full-text search of every stored message's text (SQLite FTS5, its index kept by triggers): words and prefixes
    // in any language's letters, without diacritics (Documentation/Decisions/0023).
    migrator.registerMigration("chat-v8-search") { db in
      try db.execute(
        sql: """
          CREATE VIRTUAL TABLE message_search USING fts5(
            text, content='message', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2'
          );
          INSERT INTO message_search(rowid, text) SELECT rowid, text FROM message;
          CREATE TRIGGER message_search_insert AFTER INSERT ON message BEGIN
            INSERT INTO message_search(rowid, text) VALUES (new.rowid, new.text);
          END;
          CREATE TRIGGER message_search_delete AFTER DELETE ON message BEGIN
            INSERT INTO message_search(message_search, rowid, text) VALUES ('delete', old.rowid, old.text);
          END;
          CREATE TRIGGER message_search_update AFTER UPDATE OF text ON message WHEN old.text IS NOT new.text BEGIN
            INSERT INTO message_search(message_search, rowid, text) VALUES ('delete', old.rowid, old.text);
            INSERT INTO message_search(rowid, text) VALUES (new.rowid, new.text);
          END;
          """)
    }
    // How far each member of a conversation has read, which a message's "read by" is counted from; whom a message
    // mentions, and how many unread messages mention the user.
    migrator.registerMigration("chat-v9-reads-and-mentions") { db in
      try db.execute(
        sql: """
          CREATE TABLE readPosition (
            conversationID TEXT NOT NULL,
            userID TEXT NOT NULL,
            messageID TEXT NOT NULL,
            seq INTEGER NOT NULL,
            PRIMARY KEY (conversationID, userID)
          ) WITHOUT ROWID;
          ALTER TABLE message ADD COLUMN mentions TEXT NOT NULL DEFAULT '[]';
          ALTER TABLE conversation ADD COLUMN unreadMentionCount INTEGER NOT NULL DEFAULT 0;
          """)
    }
    // The files a message carries beside its images; the server paths of the files of messages deleted (or gone with
    // their conversation), whose downloaded copies the account's file cache then forgets.
    migrator.registerMigration("chat-v10-files") { db in
      try db.execute(
        sql: """
          ALTER TABLE message ADD COLUMN files TEXT NOT NULL DEFAULT '[]';
          CREATE TABLE releasedFile (url TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID;
          CREATE TRIGGER message_files_deleted AFTER UPDATE OF files ON message
            WHEN old.files != '[]' AND new.deleted = 1 BEGIN
            INSERT OR IGNORE INTO releasedFile (url) SELECT json_extract(value, '$.url') FROM json_each(old.files);
          END;
          CREATE TRIGGER message_files_removed AFTER DELETE ON message WHEN old.files != '[]' BEGIN
            INSERT OR IGNORE INTO releasedFile (url) SELECT json_extract(value, '$.url') FROM json_each(old.files);
          END;
          """)
    }
    return migrator
  }
}

/// Persistence's error, not GRDB's deprecated alias of the same name: the store's files import both.
typealias PersistenceError = Persistence.PersistenceError
