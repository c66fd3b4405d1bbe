-- Sample data for the local stack's PostgreSQL datasource (registered as the internal datasource
-- `sample_pg`). Runs once, when the container initialises an empty data directory.
CREATE TABLE customers (
  id         bigint PRIMARY KEY,
  name       text        NOT NULL,
  email      text        NOT NULL,
  country    char(2)     NOT NULL,
  balance    numeric(18, 2) NOT NULL DEFAULT 0,
  attributes jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE orders (
  id          bigint PRIMARY KEY,
  customer_id bigint      NOT NULL REFERENCES customers (id),
  total       numeric(18, 2) NOT NULL,
  status      text        NOT NULL,
  ordered_at  timestamptz NOT NULL
);

INSERT INTO customers (id, name, email, country, balance, attributes, created_at) VALUES
  (1, 'Ada Lovelace',     'ada@example.com',     'GB', 1250.50, '{"tier": "gold", "tags": ["math", "engines"]}', '2026-01-05T09:00:00Z'),
  (2, 'Grace Hopper',     'grace@example.com',   'US',  980.00, '{"tier": "silver"}',                             '2026-02-11T14:30:00Z'),
  (3, 'Alan Turing',      'alan@example.com',    'GB',    0.00, NULL,                                             '2026-03-20T08:15:00Z'),
  (4, 'Katherine Johnson','katherine@example.com','US', 310.75, '{"tier": "bronze"}',                             '2026-04-02T17:45:00Z');

INSERT INTO orders (id, customer_id, total, status, ordered_at) VALUES
  (100, 1,  99.90, 'paid',     '2026-05-01T10:00:00Z'),
  (101, 1, 149.00, 'paid',     '2026-05-03T12:00:00Z'),
  (102, 2,  35.50, 'refunded', '2026-05-04T09:30:00Z'),
  (103, 4, 410.00, 'pending',  '2026-05-06T16:20:00Z');
