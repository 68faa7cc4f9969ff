CREATE TABLE "receiver_states" (
	"egress" text NOT NULL,
	"provider" text NOT NULL,
	"scope" text DEFAULT '' NOT NULL,
	"state" jsonb NOT NULL,
	"paused_until" timestamp with time zone,
	"throttles" integer DEFAULT 0 NOT NULL,
	"last_reply" text,
	"throttled_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "receiver_states_egress_provider_scope_pk" PRIMARY KEY("egress","provider","scope"),
	CONSTRAINT "receiver_states_throttles_check" CHECK ("receiver_states"."throttles" >= 0)
);
