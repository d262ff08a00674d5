import type { VenueSeed } from './venueSeed';

/** Bistro Nord: the small second venue; its store has the payment-link extension switched off. */
export const BISTRO_NORD: VenueSeed = {
  key: 'bistroNord',
  name: 'Bistro Nord',
  slug: 'bistro-nord',
  paymentLinkEnabled: false,
  codePrefix: 'BN',
  phonePrefix: '+90212',
  revenueCenters: [
    {
      name: 'Salle',
      tables: Array.from({ length: 6 }, (_, i) => ({ name: `S${i + 1}`, capacity: i < 4 ? 2 : 4 })),
      // Service compris: prices already include service, so no service charge line.
      serviceChargePercent: null, walkIns: false, stayMinutes: 105,
      slots: ['12:15', '19:30', '20:30'],
    },
  ],
  staff: [
    { first: 'Camille', last: 'Laurent', role: 'Manager' },
    { first: 'Julien', last: 'Moreau', role: 'Chef' },
    { first: 'Léa', last: 'Dubois', role: 'Waiter' },
    { first: 'Hugo', last: 'Lefèvre', role: 'Waiter' },
    { first: 'Chloé', last: 'Martin', role: 'Bartender' },
  ],
  customers: [
    { first: 'Amélie', last: 'Rousseau', gender: 'female' }, { first: 'Thomas', last: 'Girard', gender: 'male' },
    { first: 'Inès', last: 'Bernard', gender: 'female' }, { first: 'Lucas', last: 'Petit', gender: 'male' },
    { first: 'Manon', last: 'Durand', gender: 'female', nickname: 'Manou' }, { first: 'Antoine', last: 'Faure', gender: 'male' },
    { first: 'Elif', last: 'Şen', gender: 'female' }, { first: 'Paul', last: 'Mercier', gender: 'male' },
    { first: 'Claire', last: 'Lambert', gender: 'female' }, { first: 'Nicolas', last: 'Roux', gender: 'male' },
    { first: 'Sarah', last: 'Fontaine', gender: 'female' }, { first: 'Mathis', last: 'Chevalier', gender: 'male' },
  ],
  menu: [
    { name: "Soupe à l'Oignon", priceCents: 850, course: 'food' },
    { name: 'Croque Monsieur', priceCents: 1100, course: 'food' },
    { name: 'Steak Frites', priceCents: 2200, course: 'food' },
    { name: 'Moules Marinières', priceCents: 1850, course: 'food' },
    { name: 'Salade Niçoise', priceCents: 1300, course: 'food' },
    { name: 'Crème Brûlée', priceCents: 750, course: 'food' },
    { name: 'Tarte Tatin', priceCents: 750, course: 'food' },
    { name: 'Café', priceCents: 250, course: 'drink' },
    { name: 'Verre de Bordeaux', priceCents: 750, course: 'drink' },
    { name: 'Kir Royal', priceCents: 900, course: 'drink' },
    { name: 'Eau Minérale', priceCents: 300, course: 'drink' },
  ],
  discounts: [{ name: 'Habitué', cents: 300 }],
  offers: [{ name: 'Formule Midi', cents: 500 }],
  deliveryAddresses: [],
  taxRatePercent: 10,
  weekdayVolume: [3, 2, 2, 3, 4, 6, 6],
  seatedNow: 2,
  busySaturday: false,
  holiday: false,
  deliveries: false,
  bookers: ['Camille Laurent', 'Online booking'],
};
