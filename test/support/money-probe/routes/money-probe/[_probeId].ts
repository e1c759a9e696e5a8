import { moneyProbe } from '../../module.js';

export const { GET } = moneyProbe.routes.item;
