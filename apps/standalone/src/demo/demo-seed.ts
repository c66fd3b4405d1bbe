/** The demo database's schema. Everything lives in `shop`, so that scoping beyond `public` shows. */
export const DEMO_SCHEMA = 'shop';

/** Row counts of the seed, for the banner and the tests. */
export const DEMO_ROW_COUNTS = Object.freeze({ customers: 120, products: 40, orders: 400 });

/**
 * A small shop, built by SQL alone and without `random()`: every value follows from the row number,
 * so every start (and every test) sees the same rows.
 */
export const DEMO_SEED_SQL = `
CREATE SCHEMA ${DEMO_SCHEMA};

CREATE TABLE ${DEMO_SCHEMA}.customers (
  id         integer PRIMARY KEY,
  name       text        NOT NULL,
  email      text        NOT NULL UNIQUE,
  country    char(2)     NOT NULL,
  vip        boolean     NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE TABLE ${DEMO_SCHEMA}.products (
  id       integer PRIMARY KEY,
  sku      text          NOT NULL UNIQUE,
  name     text          NOT NULL,
  category text          NOT NULL,
  price    numeric(10,2) NOT NULL,
  in_stock integer       NOT NULL
);

CREATE TABLE ${DEMO_SCHEMA}.orders (
  id          integer PRIMARY KEY,
  customer_id integer       NOT NULL REFERENCES ${DEMO_SCHEMA}.customers(id),
  product_id  integer       NOT NULL REFERENCES ${DEMO_SCHEMA}.products(id),
  quantity    integer       NOT NULL,
  total       numeric(12,2) NOT NULL,
  status      text          NOT NULL,
  ordered_at  timestamptz   NOT NULL,
  details     jsonb         NOT NULL
);

INSERT INTO ${DEMO_SCHEMA}.customers
SELECT i,
       (ARRAY['Ada','Grace','Alan','Edsger','Barbara','Donald','Margaret','Ken','Radia','Tim'])[1 + i % 10] || ' ' ||
       (ARRAY['Lovelace','Hopper','Turing','Dijkstra','Liskov','Knuth','Hamilton','Thompson','Perlman','Berners-Lee','Ritchie','Wirth'])[1 + i % 12],
       'customer' || i || '@example.com',
       (ARRAY['BR','US','DE','PT','JP','GB','FR','IN'])[1 + i % 8],
       i % 7 = 0,
       timestamptz '2025-01-01 09:00:00+00' + make_interval(days => i * 2, hours => i % 9, mins => (i * 7) % 60)
FROM generate_series(1, ${DEMO_ROW_COUNTS.customers}) AS i;

INSERT INTO ${DEMO_SCHEMA}.products
SELECT i,
       'SKU-' || lpad(i::text, 4, '0'),
       (ARRAY['Keyboard','Mouse','Monitor','Laptop stand','Headset','Webcam','Dock','Cable','Lamp','Chair'])[1 + i % 10] ||
         ' ' || (ARRAY['Lite','Pro','Max','Mini'])[1 + i % 4],
       (ARRAY['peripherals','displays','audio','furniture','accessories'])[1 + i % 5],
       round((9.90 + (i * 37 % 500) + (i % 100) / 100.0)::numeric, 2),
       (i * 13) % 90
FROM generate_series(1, ${DEMO_ROW_COUNTS.products}) AS i;

INSERT INTO ${DEMO_SCHEMA}.orders
SELECT o.i,
       1 + (o.i * 7) % ${DEMO_ROW_COUNTS.customers},
       p.id,
       1 + o.i % 4,
       p.price * (1 + o.i % 4),
       (ARRAY['pending','paid','shipped','delivered','cancelled'])[1 + o.i % 5],
       timestamptz '2025-06-01 00:00:00+00' + make_interval(days => o.i / 3, hours => o.i % 24, mins => (o.i * 11) % 60),
       jsonb_build_object('channel', (ARRAY['web','app','phone'])[1 + o.i % 3], 'gift', o.i % 9 = 0)
FROM generate_series(1, ${DEMO_ROW_COUNTS.orders}) AS o(i)
JOIN ${DEMO_SCHEMA}.products p ON p.id = 1 + (o.i * 3) % ${DEMO_ROW_COUNTS.products};
`;
