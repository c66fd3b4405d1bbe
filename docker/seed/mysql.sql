-- Sample data for the local stack's MySQL datasource (registered as the internal datasource
-- `sample_mysql`). Runs once, when the container initialises an empty data directory.
CREATE TABLE products (
  id         BIGINT PRIMARY KEY,
  sku        VARCHAR(32)   NOT NULL UNIQUE,
  name       VARCHAR(200)  NOT NULL,
  price      DECIMAL(18,2) NOT NULL,
  in_stock   BOOLEAN       NOT NULL DEFAULT TRUE,
  details    JSON          NULL,
  updated_at DATETIME(3)   NOT NULL
);

CREATE TABLE stock_movements (
  id         BIGINT PRIMARY KEY,
  product_id BIGINT        NOT NULL,
  quantity   INT           NOT NULL,
  moved_at   DATETIME(3)   NOT NULL,
  CONSTRAINT fk_stock_product FOREIGN KEY (product_id) REFERENCES products (id)
);

INSERT INTO products (id, sku, name, price, in_stock, details, updated_at) VALUES
  (1, 'KB-001', 'Mechanical keyboard', 129.00, TRUE,  '{"layout": "ISO", "switches": "brown"}', '2026-05-01 10:00:00.000'),
  (2, 'MS-002', 'Wireless mouse',       49.90, TRUE,  '{"dpi": 16000}',                         '2026-05-02 11:30:00.000'),
  (3, 'MN-003', '27-inch monitor',     319.00, FALSE, NULL,                                     '2026-05-03 09:15:00.000');

INSERT INTO stock_movements (id, product_id, quantity, moved_at) VALUES
  (1, 1,  25, '2026-05-01 12:00:00.000'),
  (2, 2,  40, '2026-05-02 13:00:00.000'),
  (3, 1,  -3, '2026-05-04 08:45:00.000'),
  (4, 3, -10, '2026-05-05 15:10:00.000');
