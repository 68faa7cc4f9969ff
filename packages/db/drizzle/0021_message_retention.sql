-- Message retention (MESSAGE_RETENTION_DAYS): the nightly cleanup walks finished messages oldest first
-- and deletes, with each, its clicks and webhook deliveries, each found by its message id. The daily
-- rollup reads one day of sent and of suppressed messages by a range of its own index.
CREATE INDEX "messages_sent_at_idx" ON "messages" USING btree ("sent_at") WHERE "messages"."status" = 'sent';--> statement-breakpoint
CREATE INDEX "messages_suppressed_at_idx" ON "messages" USING btree ("updated_at") WHERE "messages"."status" = 'suppressed';--> statement-breakpoint
CREATE INDEX "messages_retention_idx" ON "messages" USING btree ("created_at","id") WHERE "messages"."status" in ('sent', 'failed', 'suppressed', 'cancelled', 'bounced', 'complained');--> statement-breakpoint
CREATE INDEX "link_clicks_message_idx" ON "link_clicks" USING btree ("message_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_message_idx" ON "webhook_deliveries" USING btree ("message_id") WHERE "webhook_deliveries"."message_id" is not null;