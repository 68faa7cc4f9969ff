ALTER TABLE "messages" ADD COLUMN "last_error_code" text;--> statement-breakpoint
-- Rows that failed before codes existed get one from their raw reason, so tenants never need the raw text.
UPDATE "messages" SET "last_error_code" = CASE
  WHEN "status" = 'suppressed' THEN 'suppressed'
  WHEN "last_error" ~ '(^|[^0-9])5\.1\.(0|1|2|3|6|10)([^0-9]|$)' THEN 'recipient_unknown'
  WHEN "last_error" ~ '(^|[^0-9])5[0-9][0-9][ -]' THEN 'rejected'
  WHEN "last_error" ~ '(^|[^0-9])4[0-9][0-9][ -]' THEN 'deferred'
  WHEN "last_error" ~* 'rendered|campaign|contact no longer' THEN 'undeliverable'
  ELSE 'connection_failed'
END
WHERE "last_error" IS NOT NULL;
