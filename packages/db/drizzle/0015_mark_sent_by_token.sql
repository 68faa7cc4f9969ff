DROP INDEX "messages_sending_idx";--> statement-breakpoint
CREATE INDEX "messages_lock_expiry_idx" ON "messages" USING btree ("locked_until") WHERE "messages"."locked_until" is not null;--> statement-breakpoint
-- NOT VALID, then VALIDATE: the check is enforced for new writes at once, and the existing rows are
-- read under a lock that lets sends go on (a plain ADD would block every write while it scans).
ALTER TABLE "messages" ADD CONSTRAINT "messages_lock_only_while_sending" CHECK ("messages"."lock_token" is null or "messages"."status" = 'sending') NOT VALID;--> statement-breakpoint
ALTER TABLE "messages" VALIDATE CONSTRAINT "messages_lock_only_while_sending";