-- Several pgharvest instances sharing one fleet (docs/deployment.md, "Several instances").

-- One row per instance: its heartbeat, renewed every renew interval; an instance whose row has
-- expired is gone. leaving: it is handing its sources over on a graceful stop.
CREATE TABLE fleet_instance (
    instance_id  text PRIMARY KEY,
    groups       text[] NOT NULL DEFAULT '{}',
    started_at   timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    leaving      boolean NOT NULL DEFAULT false
);

-- One row per source that some instance holds or held: the owner may run its reaper until
-- expires_at (database time) and renews it; owner NULL: handed back, free for anyone. epoch grows
-- with every change of owner (the fencing token). cost_ms and last_tick_at are what the owner
-- last measured, for balancing and for the fleet-wide status.
CREATE TABLE source_lease (
    source       text PRIMARY KEY,
    owner        text,
    epoch        bigint NOT NULL,
    expires_at   timestamptz NOT NULL,
    cost_ms      double precision NOT NULL DEFAULT 0,
    last_tick_at timestamptz
);
CREATE INDEX source_lease_owner ON source_lease (owner);
