/* nest.c: nested and recursive calls, for the uftrace fixture "nest". */
#include <stdio.h>

int leaf(int x)
{
	return x * 2;
}

int mid(int x)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += leaf(x + i);
	return s;
}

int fact(int n)
{
	return n <= 1 ? 1 : n * fact(n - 1);
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 2; i++)
		s += mid(i);
	printf("%d %d\n", s, fact(4));
	return 0;
}
