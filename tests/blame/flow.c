/* flow.c: small functions whose data flow tests/blame_index.sh checks by hand (blame-index). */
#include <stddef.h>

struct point {
	double x, y;
};

int g_total;

int add(int a, int b)
{
	int c = 0;
	c = a + b;
	return c;
}

double sum(const double *v, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

int pick(int flag, int a, int b)
{
	int r = 0;
	if (flag)
		r = a;
	else
		r = b * 2;
	return r;
}

void produce(int in, int *out)
{
	*out = in * 3;
	g_total += in;
}

void fill(double *dst, size_t n, double val)
{
	for (size_t k = 0; k < n; k++)
		dst[k] = val;
}

void move(struct point *p, double dx)
{
	struct point q;
	q.x = dx;
	q.y = 0;
	p->x += q.x;
}

int fact(int n)
{
	if (n <= 1)
		return 1;
	return n * fact(n - 1);
}

static int twice(int x)
{
	return 2 * x;
}

int apply(int (*fp)(int), int x)
{
	int y;
	y = fp(x);
	return y + twice(x);
}

int caller(void)
{
	int r;
	produce(4, &r);
	return r;
}

/* calls inside the arguments of a call with an out-argument */
int nest(int x)
{
	int r;
	produce(twice(twice(twice(twice(twice(twice(twice(twice(twice(twice(twice(twice(twice(
			twice(twice(twice(twice(twice(twice(twice(x)))))))))))))))))))), &r);
	return r;
}

/* while, do and switch conditions */
int loops(int n, int mode)
{
	int t = 0, j = n;
	while (j > 0)
		t += j--;
	do
		t++;
	while (t < mode);
	switch (mode) {
	case 1:
		t = 0;
		break;
	default:
		break;
	}
	return t;
}
