import { BoundedLabel, methodLabel, OTHER, routeLabel, sqlStateClass, UNMATCHED_ROUTE } from './labels';

describe('metric labels', () => {
  describe('methodLabel', () => {
    it.each(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])('keeps %s', (m) => {
      expect(methodLabel(m)).toBe(m);
    });

    it.each(['BREW', 'get', 'PROPFIND', ''])('turns %j into other', (m) => {
      expect(methodLabel(m)).toBe(OTHER);
    });
  });

  describe('sqlStateClass', () => {
    it.each([
      ['23505', '23'],
      ['40001', '40'],
      ['57P01', '57'],
      ['08006', '08'],
      ['42P01', '42'],
    ])('reads the class of %s as %s', (code, expected) => {
      expect(sqlStateClass(code)).toBe(expected);
    });

    it.each([undefined, null, 42, 'ECONNREFUSED', '2350', '235055', 'ab123'])('calls %j other', (code) => {
      expect(sqlStateClass(code)).toBe(OTHER);
    });
  });

  describe('routeLabel', () => {
    it('is the template, never the path', () => {
      const sut = new BoundedLabel(10);

      expect(routeLabel('/v1/groups/:id', sut)).toBe('/v1/groups/:id');
    });

    it('names a request no route matched by one fixed value', () => {
      const sut = new BoundedLabel(10);

      expect(routeLabel(undefined, sut)).toBe(UNMATCHED_ROUTE);
      expect(routeLabel('', sut)).toBe(UNMATCHED_ROUTE);
    });
  });

  describe('BoundedLabel', () => {
    it('keeps the first values up to its bound, and every later new one is other', () => {
      const sut = new BoundedLabel(3);

      expect(['a', 'b', 'c'].map((v) => sut.of(v))).toEqual(['a', 'b', 'c']);
      expect(sut.of('d')).toBe(OTHER);
      expect(sut.of('e')).toBe(OTHER);
    });

    it('still answers the values it kept once full', () => {
      const sut = new BoundedLabel(2);
      sut.of('a');
      sut.of('b');
      sut.of('c');

      expect(sut.of('a')).toBe('a');
      expect(sut.of('b')).toBe('b');
    });

    it('takes at most max + 1 distinct values however many it is given', () => {
      const sut = new BoundedLabel(50);
      const seen = new Set<string>();
      for (let i = 0; i < 10_000; i++) seen.add(sut.of(`/v1/groups/${i}`));

      expect(seen.size).toBe(51);
    });
  });
});
