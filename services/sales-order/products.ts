/**
 * The products of lookup table `product` (AdventureWorks-style bikes and accessories): reference data every database
 * gets from migration 0007-order-lines, with fixed ids, so sample lines and tests can name them on every store.
 */
export interface Product {
  productId: number;
  name: string;
  productNumber: string;
  /** Money: at most 4 fractional digits. */
  listPrice: number;
  isActive: boolean;
}

/**
 * The product that stands for an order's amount from before orders had lines: an existing database's orders each get
 * one line of it at their totalDue (0007-order-lines), so subTotal = Σ lineTotal holds for them too. Inactive: no
 * new line may use it.
 */
export const LEGACY_PRODUCT: Product = {
  productId: 1, name: 'Amount before order lines', productNumber: 'LEGACY-AMOUNT', listPrice: 0, isActive: false,
};

/** Bikes: model, its code, list price, colours and frame sizes; each combination is one product. */
const bikes: [string, string, number, string[], number[], boolean][] = [
  ['Mountain-100', 'M82', 3399.99, ['Silver', 'Black'], [38, 42, 44, 48], true],
  ['Mountain-200', 'M68', 2294.99, ['Silver', 'Black'], [38, 42, 46], true],
  // Discontinued: kept on old lines, refused on new ones.
  ['Mountain-300', 'M47', 1079.99, ['Black'], [38, 40, 44, 48], false],
  ['Road-150', 'R93', 3578.27, ['Red'], [44, 48, 52, 56, 62], true],
  ['Road-250', 'R89', 2443.35, ['Red', 'Black'], [44, 48, 52, 58], true],
  ['Road-550-W', 'R64', 1120.49, ['Yellow'], [38, 40, 42, 44, 48], true],
  ['Road-650', 'R50', 782.99, ['Red', 'Black'], [44, 48, 52, 58, 60, 62], true],
  ['Touring-1000', 'T79', 2384.07, ['Yellow', 'Blue'], [46, 50, 54, 60], true],
  ['Touring-2000', 'T44', 1214.85, ['Blue'], [46, 50, 54, 60], true],
  ['Touring-3000', 'T18', 742.35, ['Yellow', 'Blue'], [44, 50, 54, 58, 62], true],
];

/** Accessories and clothing: name, product number, list price, sizes (none: one product), active. */
const accessories: [string, string, number, string[], boolean][] = [
  ['Sport-100 Helmet, Red', 'HL-U509-R', 34.99, [], true],
  ['Sport-100 Helmet, Black', 'HL-U509', 34.99, [], true],
  ['Sport-100 Helmet, Blue', 'HL-U509-B', 34.99, [], true],
  ['Long-Sleeve Logo Jersey', 'LJ-0192', 49.99, ['S', 'M', 'L', 'XL'], true],
  ['Short-Sleeve Classic Jersey', 'SJ-0194', 53.99, ['S', 'M', 'L', 'XL'], true],
  ['Classic Vest', 'VE-C304', 63.5, ['S', 'M', 'L'], true],
  ['Half-Finger Gloves', 'GL-H102', 24.49, ['S', 'M', 'L'], true],
  ['Full-Finger Gloves', 'GL-F110', 37.99, ['S', 'M', 'L'], true],
  ["Women's Mountain Shorts", 'SH-W890', 69.99, ['S', 'M', 'L'], true],
  ['Racing Socks', 'SO-R809', 8.99, ['M', 'L'], true],
  ['Mountain Bike Socks', 'SO-B909', 9.5, ['M', 'L'], false],
  ['AWC Logo Cap', 'CA-1098', 8.99, [], true],
  ['Water Bottle - 30 oz.', 'WB-H098', 4.99, [], true],
  ['Mountain Bottle Cage', 'BC-M005', 9.99, [], true],
  ['Road Bottle Cage', 'BC-R205', 8.99, [], true],
  ['Patch Kit/8 Patches', 'PK-7098', 2.29, [], true],
  ['Mountain Tire Tube', 'TT-M928', 4.99, [], true],
  ['Road Tire Tube', 'TT-R982', 3.99, [], true],
  ['Touring Tire Tube', 'TT-T092', 4.99, [], true],
  ['HL Mountain Tire', 'TI-M823', 35, [], true],
  ['ML Mountain Tire', 'TI-M602', 29.99, [], true],
  ['LL Road Tire', 'TI-R092', 21.49, [], true],
  ['HL Road Tire', 'TI-R982', 32.6, [], true],
  ['Touring Tire', 'TI-T723', 28.99, [], true],
  ['Hydration Pack - 70 oz.', 'HY-1023-70', 54.99, [], true],
  ['Bike Wash - Dissolver', 'CL-9009', 7.95, [], true],
  ['Cable Lock', 'LO-C100', 25, [], false],
  ['Headlights - Dual-Beam', 'LT-H902', 34.99, [], true],
  ['Headlights - Weatherproof', 'LT-H903', 44.99, [], true],
  ['Taillights - Battery-Powered', 'LT-T990', 13.99, [], true],
  ['All-Purpose Bike Stand', 'ST-1401', 159, [], true],
  ['Hitch Rack - 4-Bike', 'RA-H123', 120, [], true],
  ['Fender Set - Mountain', 'FE-6654', 21.98, [], true],
  ['Minipump', 'PU-0452', 19.99, [], true],
  ['Mountain Pump', 'PU-M044', 24.99, [], true],
];

function build(): Product[] {
  const products: Product[] = [LEGACY_PRODUCT];
  let productId = 700;
  for (const [model, code, listPrice, colours, sizes, isActive] of bikes) {
    for (const colour of colours) {
      for (const size of sizes) {
        const name = `${model} ${colour}, ${size}`;
        const productNumber = `BK-${code}${colour[0]}-${size}`;
        products.push({ productId: productId++, name, productNumber, listPrice, isActive });
      }
    }
  }
  for (const [name, number, listPrice, sizes, isActive] of accessories) {
    for (const size of sizes.length ? sizes : ['']) {
      products.push({
        productId: productId++,
        name: size ? `${name}, ${size}` : name,
        productNumber: size ? `${number}-${size}` : number,
        listPrice,
        isActive,
      });
    }
  }
  return products;
}

export const products: readonly Product[] = build();
/** Products new lines may use (the sample's lines use only these). */
export const activeProducts: readonly Product[] = products.filter((p) => p.isActive);
