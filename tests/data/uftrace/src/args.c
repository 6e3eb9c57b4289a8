/* args.c: functions with arguments of many types, for the uftrace fixtures "args" (-A/-R)
 * and "autoargs" (-a). */
#include <stdio.h>

int f1(int a, const char *s, char c, short h, long l)
{
	return a + c + h + (int)l + (s ? 1 : 0);
}

double f2(float a, double b, int i)
{
	return a * b + i;
}

const char *f3(const char *a, const char *b)
{
	return a[0] ? b : NULL;
}

unsigned char f4(unsigned char x)
{
	return (unsigned char)(x + 1);
}

int main(void)
{
	int r = f1(-5, "hi \"there\"", 'Z', -3, 1234567890123L);
	double d = f2(1.25f, -2.5, 7);
	const char *s = f3("abc", "longer string value");
	const char *n = f3("", "x");
	r += f4(255);
	printf("%d %f %s %p\n", r, d, s, (const void *)n);
	return 0;
}
